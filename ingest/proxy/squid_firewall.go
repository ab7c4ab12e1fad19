package proxy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// squidFirewall parses the firewall_detailed Squid logformat of
// github/gh-aw-firewall, an egress firewall for AI agents:
//
//	%ts.%03tu %>a:%>p %{Host}>h %<a:%<p %rv %rm %>Hs %Ss:%Sh %ru "%{User-Agent}>h"
//
// As in the native format, the time is the end of the transaction.
type squidFirewall struct{}

// NewSquidFirewall returns the parser for gh-aw-firewall's firewall_detailed lines.
func NewSquidFirewall() parse.Parser { return squidFirewall{} }

func (squidFirewall) Format() string         { return "squid-firewall" }
func (squidFirewall) Source() string         { return evidence.SourceProxy }
func (squidFirewall) Framing() parse.Framing { return parse.Lines }

// Sniff accepts a line that parses: ip:port second, "TAG:HIER" eighth and
// a quoted User-Agent last, which a native line never has.
func (p squidFirewall) Sniff(rec []byte) bool {
	_, err := p.Parse(parse.Record{Data: rec})
	return err == nil
}

func (squidFirewall) Parse(rec parse.Record) ([]evidence.Event, error) {
	f, rest := leadingFields(string(rec.Data), 9)
	if len(f) < 9 || rest == "" {
		n := len(f)
		if rest != "" {
			n++
		}
		return nil, fmt.Errorf("squid-firewall line has %d fields, want 10", n)
	}
	t, err := squidTime(f[0])
	if err != nil {
		return nil, fieldErr(1, f[0], "epoch seconds.milliseconds")
	}
	client, clientPort, ok := squidAddr(f[1])
	if !ok || !parse.IsIP(client) {
		return nil, fieldErr(2, f[1], "client ip:port")
	}
	hop, hopPort, ok := squidAddr(f[3])
	if !ok {
		return nil, fieldErr(4, f[3], "server ip:port or -:-")
	}
	status, ok := httpStatus(f[6])
	if !ok {
		return nil, fieldErr(7, f[6], "HTTP status")
	}
	tag, hier, ok := squidTagHier(f[7])
	if !ok {
		return nil, fieldErr(8, f[7], "result:hierarchy")
	}
	if !strings.HasPrefix(rest, `"`) {
		return nil, fieldErr(10, rest, "quoted User-Agent")
	}
	x := squidTxn{
		time: t, client: client, clientPort: clientPort, host: f[2],
		hop: hop, hopPort: hopPort, method: f[5], status: status,
		tag: tag, hier: hier, url: f[8], userAgent: squidQuoted(rest),
	}
	return x.events()
}

// squidTagHier splits "%Ss:%Sh", e.g. "TCP_DENIED:HIER_NONE".
func squidTagHier(s string) (tag, hier string, ok bool) {
	tag, hier, ok = strings.Cut(s, ":")
	return tag, hier, ok && isSquidTag(tag) && isSquidCode(hier)
}

// squidAddr splits "%>a:%>p" or "%<a:%<p" at the last colon: Squid prints
// IPv6 addresses without brackets. "-:-" (no server) gives "", 0.
func squidAddr(s string) (host string, port int, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return "", 0, false
	}
	host, p := parse.Clean(s[:i]), s[i+1:]
	if p == "-" {
		return host, 0, true
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 || !isDigits(p) {
		return "", 0, false
	}
	return host, port, true
}

// leadingFields cuts the first n whitespace-separated fields off s and
// returns them with the rest of the line, leading space removed.
func leadingFields(s string, n int) ([]string, string) {
	var f []string
	for len(f) < n {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			break
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		f = append(f, s[:end])
		s = s[end:]
	}
	return f, strings.TrimLeft(s, " \t")
}

// squidQuoted reads a %"x field: the quotes off, Squid's \" and \\
// escapes undone; "-" (no header) is "".
func squidQuoted(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	s = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(s)
	return parse.Clean(s)
}
