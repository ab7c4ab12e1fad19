package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/nats-io/nats.go/jetstream"
)

// What a watcher puts in the holdings bucket is what the one-shot engine's
// capability sets hold, agent by agent, and for each agent its harness
// killed, its Assessment at that kill on those sets; and the ranking a
// fleet console makes of the published findings, holdings and standings
// is the incident's ranking made of the one-shot findings, capability
// sets and standings: the same agents in the same places, for the same
// reasons, contained or not.
func TestHoldingsRankAsTheIncident(t *testing.T) {
	contained, not := 0, 0
	for _, name := range []string{"credential-theft", "shared-volume-token", "egress-probe-exfil", "persistence-after-kill", "created-workload"} {
		t.Run(name, func(t *testing.T) {
			_, js := bus(t)
			evs := sampleEvents(t, name)
			want := oneShotResult(t, evs)
			if len(want.Capabilities.Holdings()) == 0 {
				t.Fatal("no agent acquired anything: the comparison would prove nothing")
			}
			publishEvents(t, js, evs)
			r := start(t, js, Config{Durable: "holdings", Lateness: 200 * time.Millisecond, Idle: 200 * time.Millisecond})
			r.idle(t, js)
			got, standings := waitHoldings(t, js, int64(len(evs)))
			r.stop(t)

			if a, b := holdingLines(want.Capabilities.Holdings()), holdingLines(got); a != b {
				t.Errorf("holdings published:\n%s\nwant (one-shot capability sets):\n%s", b, a)
			}
			// each agent its harness killed, assessed at that kill on the
			// one-shot sets, is what the watcher published of it
			wantSt := detect.StandingsAt(want, harnessKills(evs))
			if a, b := standingLines(wantSt), standingLines(standings); a != b {
				t.Errorf("standings published:\n%s\nwant (one-shot sets at the ledger's kills):\n%s", b, a)
			}
			for _, st := range standings {
				if st.Contained {
					contained++
				} else {
					not++
				}
			}
			found, _ := fold(published(t, js))
			fleet := detect.RankAgents(detect.RankInput{Findings: found, Holdings: got, Standings: standings})
			incident := detect.RankAgents(detect.RankInput{Findings: want.Findings, Capabilities: want.Capabilities, Standings: wantSt})
			// agents with a capability set but nothing acquired rank in the
			// incident and are not published: compare those the fleet has
			incident = slices.DeleteFunc(incident, func(r detect.AgentRank) bool {
				return len(r.Acquired) == 0 && r.Episodes == 0
			})
			if a, b := rankLines(incident), rankLines(fleet); a != b {
				t.Errorf("fleet ranking:\n%s\nwant the incident's:\n%s", b, a)
			}
			if !regexp.MustCompile(`acquired|sent|left|scheduled|persisted|created`).MatchString(rankLines(fleet)) {
				t.Errorf("no rank line says what was acquired:\n%s", rankLines(fleet))
			}
		})
	}
	if contained == 0 || not == 0 {
		t.Errorf("the samples' harnesses killed %d agents contained and %d not: the test covers one side only", contained, not)
	}
}

// waitHoldings waits until every holding in the bucket was computed over
// events events, and returns them by agent (those of an agent that
// acquired something), with the standings published beside them.
func waitHoldings(t *testing.T, js jetstream.JetStream, events int64) (map[string]capability.Holding, map[string]capability.Standing) {
	t.Helper()
	ctx := context.Background()
	kv, err := js.KeyValue(ctx, HoldingsBucket(DefaultFindingsStream))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, standings := map[string]capability.Holding{}, map[string]capability.Standing{}
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
			if len(h.Acquired) > 0 {
				out[h.Agent] = h.Holding
			}
			if h.Standing != nil {
				standings[h.Agent] = *h.Standing
			}
		}
		if complete {
			return out, standings
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

func standingLines(st map[string]capability.Standing) string {
	var lines []string
	for a, s := range st {
		lines = append(lines, fmt.Sprintf("%s kill=%s by=%s contained=%v at=%s holds=%v %s", a, s.Kill.UTC().Format(time.RFC3339Nano), s.By,
			s.Contained, s.ContainedAt.UTC().Format(time.RFC3339Nano), s.Holds, s.Headline))
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// harnessKills is, read straight from the events, each agent whose last
// session to end was ended by the ledger with reason killed, none of its
// sessions still open.
func harnessKills(evs []evidence.Event) map[string]time.Time {
	open, last := map[string]int{}, map[string]evidence.Event{}
	for _, ev := range evs {
		if ev.Source != evidence.SourceLedger || ev.Agent == "" {
			continue
		}
		switch ev.Kind {
		case evidence.KindSessionStart:
			open[ev.Agent]++
		case evidence.KindSessionEnd:
			open[ev.Agent]--
			if l, ok := last[ev.Agent]; !ok || !ev.Time.Before(l.Time) {
				last[ev.Agent] = ev
			}
		}
	}
	out := map[string]time.Time{}
	for a, ev := range last {
		if open[a] == 0 && ev.Status == "killed" {
			out[a] = ev.Time
		}
	}
	return out
}

func rankLines(rs []detect.AgentRank) string {
	var lines []string
	for _, r := range rs {
		lines = append(lines, fmt.Sprintf("%d %s open=%v holds=%v %s", r.Rank, r.Agent, r.Open, r.Holds, r.Reason))
	}
	return strings.Join(lines, "\n")
}
