package detect_test

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
)

// An event a binding conflict left between two agents is a use of each:
// the destination it reached is in both agents' capability sets, with the
// same event as a use; neither loses it to the other.
func TestConflictedUsesCountForEveryCandidate(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	ledger := func(id, kind, agent, session string, m int) evidence.Event {
		return evidence.Event{ID: id, Time: at(m), Source: evidence.SourceLedger, Format: "cordon-ledger", Kind: kind, Agent: agent, Session: session}
	}
	s1, s2 := ledger("s1", evidence.KindSessionStart, "agent-1", "s-1", 0), ledger("s2", evidence.KindSessionStart, "agent-2", "s-2", 60)
	s1.SrcIP, s2.SrcIP = "10.0.9.4", "10.0.9.4"
	evs := []evidence.Event{s1, s2,
		ledger("c1", evidence.KindToolCall, "agent-1", "s-1", 5),
		ledger("c2", evidence.KindToolCall, "agent-2", "s-2", 62),
		ledger("c3", evidence.KindToolCall, "agent-1", "s-1", 80),
		{ID: "up", Time: at(70), Source: evidence.SourceProxy, Format: "squid", Kind: evidence.KindNetRequest, SrcIP: "10.0.9.4",
			DstHost: "paste.example", Method: "POST", BytesOut: 900_000, Decision: evidence.DecisionAllow},
	}
	r := scanAttributed(t, evs)
	for _, agent := range []string{"agent-1", "agent-2"} {
		c, ok := findCap(r.Capabilities.For(agent), capability.DataOut, "paste.example")
		if !ok || c.UseCount() != 1 {
			t.Errorf("%s: data out to paste.example %+v (%v)", agent, c, ok)
		}
	}
	found := false
	for _, f := range r.Findings {
		found = found || f.Detector == "binding-conflict"
	}
	if !found {
		t.Errorf("no binding-conflict finding among %d", len(r.Findings))
	}
}
