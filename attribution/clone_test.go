package attribution_test

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// A clone attributes as the original did when it was taken, and what the
// original observes after does not reach it: the watcher's pass goes on
// reading while an enforcement point attributes with the copy.
func TestIdentityCloneSharesNothing(t *testing.T) {
	t0 := at("2026-07-21T10:00:00Z")
	start := func(agent, sess, ip string, at time.Time) evidence.Event {
		return evidence.Event{Time: at, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: agent, Session: sess, SrcIP: ip,
			Credential: []string{"px-" + sess}}
	}
	s1 := start("agent-1", "s-1", "10.0.0.1", t0)
	id := attribution.NewIdentity([]evidence.Event{s1})
	c := id.Clone()
	req := evidence.Event{Time: t0.Add(2 * time.Hour), Source: evidence.SourceProxy, SrcIP: "10.0.0.1"}
	if a, b := id.Attribute(&req), c.Attribute(&req); a.Agent != "agent-1" || b.Agent != a.Agent || b.Via != a.Via {
		t.Fatalf("original %+v, clone %+v", a, b)
	}
	// the address is bound again, to another agent, and agent-1's
	// credential's session ends: only the original knows
	s2 := start("agent-2", "s-2", "10.0.0.1", t0.Add(time.Hour))
	id.Observe(&s2)
	end := evidence.Event{Time: t0.Add(90 * time.Minute), Source: evidence.SourceLedger, Kind: evidence.KindSessionEnd, Agent: "agent-1", Session: "s-1"}
	id.Observe(&end)
	if a := id.Attribute(&req); a.Agent != "agent-2" {
		t.Errorf("original after the rebinding: %+v, want agent-2", a)
	}
	if b := c.Attribute(&req); b.Agent != "agent-1" {
		t.Errorf("the clone saw the original's later bindings: %+v, want agent-1", b)
	}
	cred := evidence.Event{Time: t0.Add(2 * time.Hour), Source: evidence.SourceProxy, SrcIP: "192.0.2.9", User: "px-s-1"}
	if a := id.Attribute(&cred); a.Agent != "" {
		t.Errorf("original: a credential used after its session ended speaks for %q", a.Agent)
	}
	if b := c.Attribute(&cred); b.Agent != "agent-1" || b.Via != attribution.ViaCredential {
		t.Errorf("clone: the credential of a session it saw open: %+v", b)
	}
}
