package detect

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// TestSessionNamedInDoesNotGuess: a path segment naming one agent's
// session is that session; one naming sessions of two agents (two runs
// reusing an id) names none, whatever order the sessions were learnt in.
func TestSessionNamedInDoesNotGuess(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	start := func(id, agent, sess string) evidence.Event {
		return evidence.Event{ID: id, Time: t0, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: agent, Session: sess}
	}
	for _, evs := range [][]evidence.Event{
		{start("1", "agent-1", "s-1"), start("2", "agent-2", "s-1"), start("3", "agent-3", "s-3")},
		{start("2", "agent-2", "s-1"), start("1", "agent-1", "s-1"), start("3", "agent-3", "s-3")},
	} {
		e := newEnv(evs)
		if s := e.sessionNamedIn("/run/secrets/eval/s-1/proxy.env"); s != nil {
			t.Errorf("s-1 of two agents read as %s's", s.agent)
		}
		if s := e.sessionNamedIn("/run/secrets/eval/s-3/proxy.env"); s == nil || s.agent != "agent-3" {
			t.Errorf("s-3: %+v", s)
		}
		if s := e.sessionNamedIn("/run/secrets/s-3/s-1/x"); s == nil || s.agent != "agent-3" {
			t.Errorf("the first segment naming one session: %+v", s)
		}
	}
}
