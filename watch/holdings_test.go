package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/nats-io/nats.go/jetstream"
)

// What a watcher puts in the holdings bucket is what the one-shot engine's
// capability sets hold, agent by agent; and the ranking a fleet console
// makes of the published findings and holdings is the incident's ranking
// made of the one-shot findings and capability sets: the same agents in
// the same places, for the same reasons.
func TestHoldingsRankAsTheIncident(t *testing.T) {
	for _, name := range []string{"credential-theft", "shared-volume-token", "egress-probe-exfil"} {
		t.Run(name, func(t *testing.T) {
			_, js := bus(t)
			evs := sampleEvents(t, name)
			want := oneShotResult(t, evs)
			if len(want.Capabilities.Holdings()) == 0 {
				t.Fatal("no agent acquired anything: the comparison would prove nothing")
			}
			publishEvents(t, js, evs)
			w, err := New(js, Config{Durable: "holdings", Lateness: 200 * time.Millisecond, Idle: 200 * time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- w.Run(ctx) }()
			waitIdle(t, js, w, w.cfg.Durable, done)
			got := waitHoldings(t, js, int64(len(evs)))
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("watcher: %v", err)
			}

			if a, b := holdingLines(want.Capabilities.Holdings()), holdingLines(got); a != b {
				t.Errorf("holdings published:\n%s\nwant (one-shot capability sets):\n%s", b, a)
			}
			found, _ := fold(published(t, js))
			fleet := detect.RankAgents(detect.RankInput{Findings: found, Holdings: got})
			incident := detect.RankAgents(detect.RankInput{Findings: want.Findings, Capabilities: want.Capabilities})
			// agents with a capability set but nothing acquired rank in the
			// incident and are not published: compare those the fleet has
			incident = slices.DeleteFunc(incident, func(r detect.AgentRank) bool {
				return len(r.Acquired) == 0 && r.Episodes == 0
			})
			if a, b := rankLines(incident), rankLines(fleet); a != b {
				t.Errorf("fleet ranking:\n%s\nwant the incident's:\n%s", b, a)
			}
			if !strings.Contains(rankLines(fleet), "acquired") && !strings.Contains(rankLines(fleet), "sent") {
				t.Errorf("no rank line says what was acquired:\n%s", rankLines(fleet))
			}
		})
	}
}

// waitHoldings waits until every holding in the bucket was computed over
// events events, and returns them by agent.
func waitHoldings(t *testing.T, js jetstream.JetStream, events int64) map[string]capability.Holding {
	t.Helper()
	ctx := context.Background()
	kv, err := js.KeyValue(ctx, HoldingsBucket(DefaultFindingsStream))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out := map[string]capability.Holding{}
		keys, err := kv.Keys(ctx)
		complete := err == nil && len(keys) > 0
		for _, k := range keys {
			e, err := kv.Get(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			var h Holding
			if err := json.Unmarshal(e.Value(), &h); err != nil {
				t.Fatal(err)
			}
			if holdingKey(h.Agent) != k {
				t.Errorf("holding of %q under key %q", h.Agent, k)
			}
			complete = complete && h.Events == events
			out[h.Agent] = h.Holding
		}
		if complete {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("holdings not computed over all %d events after 30s: %v (%v)", events, out, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func holdingLines(hs map[string]capability.Holding) string {
	var lines []string
	for a, h := range hs {
		lines = append(lines, fmt.Sprintf("%s %v unended=%v bytes=%d", a, h.Acquired, h.Unended, h.BytesOut))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

func rankLines(rs []detect.AgentRank) string {
	var lines []string
	for _, r := range rs {
		lines = append(lines, fmt.Sprintf("%d %s open=%v holds=%v %s", r.Rank, r.Agent, r.Open, r.Holds, r.Reason))
	}
	return strings.Join(lines, "\n")
}
