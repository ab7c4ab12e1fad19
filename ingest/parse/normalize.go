package parse

import (
	"fmt"
	"net"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Normalize applies what every parser's events share: addresses written one
// way (so ::ffff:10.0.3.7 from a dual-stack proxy matches the ledger's
// 10.0.3.7), a time a timeline can hold, and the credential catalogue: a
// read of a credential location or a metadata service is tagged cred-read
// whatever its source (docs/credentials.md). The ingest driver applies it
// to every event and rejects the record when it fails, as it does a port,
// a pid, a byte count or a duration out of its range.
func Normalize(ev *evidence.Event) error {
	if y := ev.Time.Year(); y < 1970 || y > 9999 {
		return fmt.Errorf("time %s out of range (years 1970-9999)", ev.Time.Format(time.RFC3339))
	}
	if err := checkNumbers(ev); err != nil {
		return err
	}
	ev.SrcIP, ev.DstIP = canonIP(ev.SrcIP), canonIP(ev.DstIP)
	credentialRead(ev)
	return nil
}

// canonIP writes an IP address in its canonical form; anything else is kept.
func canonIP(s string) string {
	if s == "" {
		return s
	}
	if ip := net.ParseIP(s); ip != nil {
		return ip.String()
	}
	return s
}
