package watch

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/detect"
)

// The view verdicts read, made from the pass's last view (the sets of the
// agents that did not change shared), gives every agent the reply a view
// made from scratch (the pass's whole answer copied, as verdicts read it
// before) gives, byte for byte, with a kill time and without, after each
// event of samples where several agents act, findings are withdrawn and
// capabilities end. A view made is not changed by the events after it.
func TestVerdictViewIncrementalEqualsFromScratch(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := DefaultPolicy()
	withdrawn, ended := 0, 0
	for _, name := range []string{"credential-theft", "cloud-key-after-kill", "persistence-after-kill", "egress-probe-exfil", "created-workload", "shared-volume-token"} {
		evs := sampleEvents(t, name)
		eng := detect.Engine{Rules: rules, Attribute: true}
		p, err := eng.Start(context.Background(), detect.NewMemSource(nil)) // sessions learnt as they come, as a watcher's pass
		if err != nil {
			t.Fatal(err)
		}
		lastFindings := map[string]bool{}
		lastHeld := map[string]bool{}
		var kept *view
		var keptReplies string
		for i := range evs {
			if err := p.Add(&evs[i]); err != nil {
				t.Fatal(err)
			}
			inc := newView(p.View(), p.Last().Time, p.Events())
			res := p.Result()
			standings := detect.StandingsAt(res, p.HarnessKills())
			scratch := newView(detect.View{Result: res, Standings: standings,
				Ranks: detect.RankAgents(detect.RankInput{Findings: res.Findings, Capabilities: res.Capabilities, Standings: standings})},
				p.Last().Time, p.Events())
			agents := append(res.Capabilities.Agents(), "nobody")
			for _, f := range res.Findings {
				if !slices.Contains(agents, f.Agent) {
					agents = append(agents, f.Agent)
				}
			}
			findings, held := map[string]bool{}, map[string]bool{}
			for _, agent := range agents {
				for _, req := range []VerdictRequest{{}, {Kill: evs[i].Time}} {
					got, want := replyJSON(t, inc, &pol, agent, &req), replyJSON(t, scratch, &pol, agent, &req)
					if got != want {
						t.Fatalf("%s, after event %d (%s), agent %s, kill %v: the incremental view's reply differs\n got %s\nwant %s",
							name, i, evs[i].ID, agent, !req.Kill.IsZero(), got, want)
					}
					// one reply says one thing: its rank line is judged at the
					// request's kill as its Assessment is
					if d := decide(inc, &pol, agent, &req); d.Rank != nil && d.Assessment != nil && d.Rank.Contained != d.Assessment.Contained {
						t.Fatalf("%s, agent %s: rank contained %v, the Assessment at the request's kill %v", name, agent, d.Rank.Contained, d.Assessment.Contained)
					}
				}
				v := decide(inc, &pol, agent, &VerdictRequest{})
				for _, f := range v.Findings {
					findings[f.ID] = true
				}
				for _, c := range v.Capabilities {
					held[agent+" "+string(c.Kind)+" "+c.Value] = c.Held
				}
			}
			for id := range lastFindings {
				if !findings[id] {
					withdrawn++
				}
			}
			for k, h := range lastHeld {
				if h && !held[k] {
					ended++
				}
			}
			lastFindings, lastHeld = findings, held
			if i == len(evs)/2 {
				kept, keptReplies = inc, allReplies(t, inc, &pol)
			}
		}
		if kept != nil && allReplies(t, kept, &pol) != keptReplies {
			t.Errorf("%s: a view's replies changed after it was made", name)
		}
	}
	if withdrawn == 0 || ended == 0 {
		t.Fatalf("%d findings withdrawn, %d capabilities ended between views: the samples do not cover both", withdrawn, ended)
	}
}

func replyJSON(t *testing.T, v *view, pol *Policy, agent string, req *VerdictRequest) string {
	t.Helper()
	b, err := json.Marshal(decide(v, pol, agent, req))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// allReplies are the replies of v for every agent it knows.
func allReplies(t *testing.T, v *view, pol *Policy) string {
	t.Helper()
	agents := append(v.res.Capabilities.Agents(), "nobody")
	for _, a := range slices.Sorted(maps.Keys(v.byAgent)) {
		if !slices.Contains(agents, a) {
			agents = append(agents, a)
		}
	}
	out := ""
	for _, a := range agents {
		out += replyJSON(t, v, pol, a, &VerdictRequest{}) + "\n"
	}
	return out
}
