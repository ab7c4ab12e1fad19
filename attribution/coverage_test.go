package attribution_test

import (
	"context"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
)

// TestCoverageCountsKeylessEvents: a host-level Falco alert (no container,
// pod, IP or credential) cannot be attributed and is not counted as
// attributable; a sandbox's alert is attributed through its container.
func TestCoverageCountsKeylessEvents(t *testing.T) {
	ledger := `{"v":1,"ts":"2026-07-21T10:00:00Z","type":"session_start","agent":"agent-7","session":"s-1","sandbox":{"id":"sb-1","container_id":"f4f6555900a5","ip":"10.0.3.7"}}` + "\n"
	falco := `{"output":"10:01:00.000000000: Notice shell in container","priority":"Notice","rule":"Terminal shell in container","time":"2026-07-21T10:01:00.000000000Z","output_fields":{"container.id":"f4f6555900a5","proc.cmdline":"bash"}}` + "\n" +
		`{"output":"10:02:00.000000000: Warning host sshd","priority":"Warning","rule":"Read sensitive file untrusted","time":"2026-07-21T10:02:00.000000000Z","output_fields":{"proc.cmdline":"sshd"}}` + "\n"
	st := attributedStore(t, writeFile(t, "ledger.jsonl", []byte(ledger)), writeFile(t, "falco.jsonl", []byte(falco)))
	cov, err := attribution.Coverage(context.Background(), st)
	if err != nil || len(cov) != 1 {
		t.Fatalf("coverage %+v %v", cov, err)
	}
	if c := cov[0]; c.Source != "sensor" || c.Total != 2 || c.Attributable != 1 || c.Attributed != 1 || c.Unattributed != 1 || c.Percent() != 100 {
		t.Errorf("sensor coverage %+v", c)
	}
}
