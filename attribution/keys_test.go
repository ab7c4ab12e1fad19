package attribution_test

import (
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// The identity records of a share of the evidence: the session records,
// each session's latest record, and the tool call that named another
// session's credential; not the agents' other records, nor the traffic the
// map decided. The attribution is AttributeAll's.
func TestAttributeAllKeysMarksTheIdentityRecords(t *testing.T) {
	evs := []evidence.Event{
		{ID: "s1", Time: at("2026-07-21T10:00:00Z"), Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: "agent-1", Session: "s-1", SrcIP: "10.0.0.1", Credential: []string{"px-s1"}},
		{ID: "s2", Time: at("2026-07-21T10:00:00Z"), Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: "agent-2", Session: "s-2", SrcIP: "10.0.0.2", Credential: []string{"px-s2"}},
		{ID: "c1", Time: at("2026-07-21T10:01:00Z"), Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Agent: "agent-1", Session: "s-1", Tool: "shell", Cmdline: "ls /work"},
		{ID: "c2", Time: at("2026-07-21T10:02:00Z"), Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Agent: "agent-2", Session: "s-2", Tool: "shell", Cmdline: "curl -U px-s1 http://example.org"},
		{ID: "c3", Time: at("2026-07-21T10:03:00Z"), Source: evidence.SourceLedger, Kind: evidence.KindToolCall, Agent: "agent-1", Session: "s-1", Tool: "shell", Cmdline: "ls /tmp"},
		{ID: "p1", Time: at("2026-07-21T10:04:00Z"), Source: evidence.SourceProxy, Kind: evidence.KindNetRequest, SrcIP: "10.0.0.1", DstHost: "pypi.org"},
		{ID: "p2", Time: at("2026-07-21T10:05:00Z"), Source: evidence.SourceProxy, Kind: evidence.KindNetRequest, SrcIP: "192.0.2.9", User: "px-s1", DstHost: "example.org"},
	}
	ref := append([]evidence.Event(nil), evs...)
	attribution.AttributeAll(ref)
	got := append([]evidence.Event(nil), evs...)
	_, keys := attribution.AttributeAllKeys(got)
	for i := range got {
		if got[i].Agent != ref[i].Agent || got[i].AttributedVia != ref[i].AttributedVia {
			t.Errorf("%s: attributed %q via %q, AttributeAll says %q via %q", got[i].ID, got[i].Agent, got[i].AttributedVia, ref[i].Agent, ref[i].AttributedVia)
		}
	}
	want := map[string]bool{"s1": true, "s2": true, "c2": true, "c3": true}
	for i, ev := range got {
		if keys[i] != want[ev.ID] {
			t.Errorf("%s: identity record %v, want %v", ev.ID, keys[i], want[ev.ID])
		}
	}
	if got[5].Agent != "agent-1" {
		t.Errorf("p1 attributed to %q, want agent-1", got[5].Agent)
	}
}
