package attribution_test

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// The egress sample reuses 10.0.3.7: agent-7's until its session is killed
// (and, with no new binding, for the line logged a second later), agent-3's
// from 11:05:12.
func TestAttributionFollowsIPReuse(t *testing.T) {
	evs := loadSample(t, "egress-probe-exfil")
	id := attribution.NewIdentity(evs)
	reuse := at("2026-07-21T11:05:12Z")
	n := 0
	for i := range evs {
		ev := &evs[i]
		if ev.Format != "squid" || ev.SrcIP != "10.0.3.7" {
			continue
		}
		n++
		a := id.Attribute(ev)
		want := "agent-7"
		if !ev.Time.Before(reuse) {
			want = "agent-3"
		}
		if a.Agent != want {
			t.Errorf("%s %s: attributed to %q via %q %v, want %s", ev.Origin, ev.Time.Format(time.TimeOnly), a.Agent, a.Via, a.Candidates, want)
		}
	}
	if n < 20 {
		t.Fatalf("only %d squid lines from 10.0.3.7", n)
	}
}

func TestContainerPrefixesAndAmbiguity(t *testing.T) {
	t0 := at("2026-07-21T10:00:00Z")
	start := func(agent, sess, ip, ctr string, at time.Time) evidence.Event {
		return evidence.Event{Time: at, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: agent, Session: sess, SrcIP: ip, Container: ctr}
	}
	id := attribution.NewIdentity([]evidence.Event{
		start("agent-1", "s-1", "10.0.0.1", "3f2a9c1d7e88", t0),
		start("agent-2", "s-2", "10.0.0.2", "containerd://aaaabbbbccccddddeeeeffff0000111122223333444455556666777788889999", t0),
		{Time: t0.Add(time.Hour), Source: evidence.SourceLedger, Kind: evidence.KindSessionEnd, Agent: "agent-1", Session: "s-1"},
	})
	cases := []struct {
		name  string
		ev    evidence.Event
		agent string
		via   string
	}{
		{"full id matches a short binding", evidence.Event{Container: "3f2a9c1d7e88ebbaadb4bcfadc2e6565cf94d0e1a6d7d618ae0fcc337ff6c0a2"}, "agent-1", attribution.ViaContainer},
		{"short id matches a full binding", evidence.Event{Container: "AAAABBBBCCCC"}, "agent-2", attribution.ViaContainer},
		{"ip", evidence.Event{SrcIP: "10.0.0.2"}, "agent-2", attribution.ViaIP},
		{"container of one, ip of the other", evidence.Event{Container: "3f2a9c1d7e88", SrcIP: "10.0.0.2"}, "", attribution.ViaAmbiguous},
		{"unknown ip", evidence.Event{SrcIP: "192.0.2.1"}, "", ""},
		{"too short a prefix", evidence.Event{Container: "3f2a"}, "", ""},
	}
	for _, c := range cases {
		c.ev.Time, c.ev.Source = t0.Add(time.Minute), evidence.SourceProxy
		a := id.Attribute(&c.ev)
		if a.Agent != c.agent || a.Via != c.via {
			t.Errorf("%s: %q via %q (%v), want %q via %q", c.name, a.Agent, a.Via, a.Candidates, c.agent, c.via)
		}
	}
	after := evidence.Event{Time: t0.Add(2 * time.Hour), Source: evidence.SourceSensor, Container: "3f2a9c1d7e88"}
	if a := id.Attribute(&after); a.Agent != "agent-1" || !a.AfterEnd {
		t.Errorf("after session end: %+v", a)
	}
}
