package attribution_test

import (
	"context"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
)

func TestAgents(t *testing.T) {
	st := attributedStore(t, consoleFixture)
	agents, err := attribution.Agents(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if len(agents) != 2 {
		t.Fatalf("want 2 agents, got %+v", agents)
	}
	a := agents[0]
	if a.Agent != "agent-7" || a.Model != "acme-large-2026-06" || a.Sandbox != "sb-42" || a.IP != "10.0.3.7" || a.Run != "r-0721a" || a.Sessions != 1 {
		t.Errorf("agent-7 identity: %+v", a)
	}
	if a.Events != 51 || a.Denied != 15 { // ledger records plus the proxy and sensor events attributed to it
		t.Errorf("agent-7 counts: events %d denied %d, want 51 and 15", a.Events, a.Denied)
	}
	if want := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC); !a.First.Equal(want) {
		t.Errorf("agent-7 first seen %v, want %v", a.First, want)
	}
	if want := time.Date(2026, 7, 21, 10, 15, 0, 0, time.UTC); !a.Last.Equal(want) {
		t.Errorf("agent-7 last seen %v, want %v", a.Last, want)
	}
	if b := agents[1]; b.Agent != "agent-3" || b.Denied != 0 || b.IP != "10.0.3.5" {
		t.Errorf("agent-3: %+v", b)
	}
}
