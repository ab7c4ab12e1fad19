package ledger_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/ingest/ledger"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

func TestLedgerGolden(t *testing.T) {
	c := parsetest.ParseFile(t, ledger.New(), parsetest.Testdata("ledger", "all-types.jsonl"))
	if len(c.Events) != 12 || len(c.Rejects) != 4 {
		t.Fatalf("got %d events, %d rejects; want 12 and 4", len(c.Events), len(c.Rejects))
	}
	parsetest.CheckGolden(t, "ledger-all-types", c)
}

func TestLedgerSessionStartKeepsBinding(t *testing.T) {
	c := parsetest.ParseFile(t, ledger.New(), parsetest.Testdata("ledger", "all-types.jsonl"))
	ev := c.Events[0]
	if ev.Sandbox != "sb-42" || ev.Container != "3f2a9c1d7e88" || ev.SrcIP != "10.0.3.7" || ev.Host != "eval-node-3" {
		t.Errorf("sandbox binding lost: %+v", ev)
	}
	if strings.Join(ev.Credential, ",") != "tok-91" || len(ev.ToolsAllowed) != 3 || len(ev.EgressAllowlist) != 2 {
		t.Errorf("grants lost: creds %v tools %v egress %v", ev.Credential, ev.ToolsAllowed, ev.EgressAllowlist)
	}
	if got := c.Events[1].Time.Format("15:04:05.000"); got != "08:00:02.500" {
		t.Errorf("offset time not normalized to UTC: %s", got)
	}
}

func TestLedgerRejectsSayWhereAndWhy(t *testing.T) {
	c := parsetest.ParseFile(t, ledger.New(), parsetest.Testdata("ledger", "all-types.jsonl"))
	want := map[string]string{
		"all-types.jsonl:13": "not a ledger record",
		"all-types.jsonl:14": "ledger version 2",
		"all-types.jsonl:15": "bad time",
		"all-types.jsonl:16": "no agent",
	}
	for _, r := range c.Rejects {
		if !strings.Contains(r.Reason, want[r.Origin]) || want[r.Origin] == "" {
			t.Errorf("reject %s: reason %q, want it to say %q", r.Origin, r.Reason, want[r.Origin])
		}
	}
}

func FuzzLedger(f *testing.F) {
	parsetest.Fuzz(f, ledger.New(), parsetest.Testdata("ledger", "all-types.jsonl"))
}
