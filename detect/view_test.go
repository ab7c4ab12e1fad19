package detect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// A view made from the last one (only the sets of the agents that changed
// copied) equals the answer made from scratch (Result: every set copied
// and finished) after every event of every bundled sample, the sessions
// known from the start or learnt as their records come: the findings,
// every agent's capability set, the coverage, the skews, the one ranking
// and every agent's holding. Along the way findings are withdrawn and
// capabilities end, each between two views.
func TestViewMadeIncrementallyEqualsFromScratch(t *testing.T) {
	withdrawn, ended := 0, 0
	for _, name := range bundledSamples {
		eng, src, _ := oneShot(t, name)
		w, e := viewsAlong(t, name, eng, src)
		withdrawn, ended = withdrawn+w, ended+e
	}
	if withdrawn == 0 || ended == 0 {
		t.Fatalf("the samples withdrew %d findings and ended %d capabilities between views: the test does not cover both", withdrawn, ended)
	}
}

// The same for credentials an agent minted through the cloud's API (no
// bundled sample has them): each is made, used and ended by the
// issuer's record between two views.
func TestViewOfMintedCredentialsEqualsFromScratch(t *testing.T) {
	evs, _ := mintedCase(t)
	attribution.AttributeAll(evs)
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if _, ended := viewsAlong(t, "minted", detect.Engine{Rules: rules}, detect.NewMemSource(evs)); ended < 3 {
		t.Fatalf("%d capabilities ended between views, want the three minted ones at least", ended)
	}
}

// viewsAlong feeds src's events to a pass, the sessions known from the
// start and then learnt as their records come, and compares the view
// after every event with the answer made from scratch; it counts the
// findings withdrawn and the capabilities ended between two views.
func viewsAlong(t *testing.T, name string, eng detect.Engine, src *detect.MemSource) (withdrawn, ended int) {
	t.Helper()
	ctx := context.Background()
	for _, learnt := range []bool{false, true} {
		start := detect.Source(src)
		if learnt {
			start = detect.NewMemSource(nil)
		}
		p, err := eng.Start(ctx, start)
		if err != nil {
			t.Fatal(err)
		}
		var last detect.View
		type kept struct {
			v    detect.View
			json string
		}
		var earlier []kept
		err = src.Each(ctx, evidence.All(), func(ev evidence.Event) error {
			if err := p.Add(&ev); err != nil {
				return err
			}
			got := p.View()
			want := p.Result()
			if g, w := viewJSON(t, got), viewJSON(t, detect.View{Result: want,
				Ranks:    detect.RankAgents(detect.RankInput{Findings: want.Findings, Capabilities: want.Capabilities, Standings: detect.StandingsAt(want, p.HarnessKills())}),
				Holdings: holdingsOf(want), Standings: detect.StandingsAt(want, p.HarnessKills())}); g != w {
				t.Fatalf("%s (sessions learnt %v), after %s: the view made from the last one differs from the one made from scratch\n got %s\nwant %s",
					name, learnt, ev.ID, g, w)
			}
			withdrawn += gone(last, got)
			ended += newEnds(last, got)
			last = got
			if p.Events()%10 == 1 {
				earlier = append(earlier, kept{got, viewJSON(t, got)})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// the findings asked after every event are a replay's asked once
		// (sessions learnt as they come may judge earlier events otherwise)
		if !learnt {
			once, err := eng.Start(ctx, src)
			if err != nil {
				t.Fatal(err)
			}
			if err := once.Replay(ctx, src); err != nil {
				t.Fatal(err)
			}
			g, _ := json.Marshal(p.Findings())
			w, _ := json.Marshal(once.Findings())
			if string(g) != string(w) {
				t.Fatalf("%s: the findings asked after every event differ from a replay's\n got %s\nwant %s", name, g, w)
			}
		}
		// a view once made is not changed by what comes after it
		for _, k := range earlier {
			if viewJSON(t, k.v) != k.json {
				t.Fatalf("%s (sessions learnt %v): a view changed after it was made", name, learnt)
			}
		}
	}
	return withdrawn, ended
}

func viewJSON(t *testing.T, v detect.View) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"findings": v.Findings, "caps": v.Capabilities.ByAgent(), "coverage": v.Coverage,
		"skews": v.Skews, "ranks": v.Ranks, "holdings": v.Holdings, "standings": v.Standings})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func holdingsOf(r detect.Result) map[string]capability.Holding {
	out := map[string]capability.Holding{}
	for _, a := range r.Capabilities.Agents() {
		out[a] = r.Capabilities.Holding(a)
	}
	return out
}

// gone counts the findings of a that b no longer has.
func gone(a, b detect.View) int {
	ids := map[string]bool{}
	for _, f := range b.Findings {
		ids[f.ID] = true
	}
	n := 0
	for _, f := range a.Findings {
		if !ids[f.ID] {
			n++
		}
	}
	return n
}

// newEnds counts the capabilities that have more ends in b than in a.
func newEnds(a, b detect.View) int {
	if a.Capabilities == nil {
		return 0
	}
	n := 0
	for _, agent := range b.Capabilities.Agents() {
		before := map[string]int{}
		for c := range a.Capabilities.All(agent) {
			before[string(c.Kind)+"\x00"+c.Value] = len(c.Ends)
		}
		for c := range b.Capabilities.All(agent) {
			if len(c.Ends) > before[string(c.Kind)+"\x00"+c.Value] {
				n++
			}
		}
	}
	return n
}

// Holdings alone (no findings, no ranking: a watcher without verdicts)
// equals every agent's holding made from scratch after every event of
// every bundled sample, and the views made between them, from what
// Holdings kept, still equal the answer made from scratch.
func TestHoldingsEqualViewsHoldings(t *testing.T) {
	ctx := context.Background()
	for _, name := range bundledSamples {
		eng, src, _ := oneShot(t, name)
		p, err := eng.Start(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		err = src.Each(ctx, evidence.All(), func(ev evidence.Event) error {
			if err := p.Add(&ev); err != nil {
				return err
			}
			want := p.Result()
			var got map[string]capability.Holding
			if p.Events()%3 == 0 {
				got = p.View().Holdings
			} else {
				got = p.Holdings()
			}
			g, err := json.Marshal(got)
			if err != nil {
				return err
			}
			w, err := json.Marshal(holdingsOf(want))
			if err != nil {
				return err
			}
			if string(g) != string(w) {
				t.Fatalf("%s, after %s (event %d): holdings\n got %s\nwant %s", name, ev.ID, p.Events(), g, w)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// A place an agent acted from ends when every credential used from it
// has: credential-theft with px-s228's refusals moved to a second host,
// so that the credential ends while the place it was used from takes no
// event. A view made from the last one finishes the place again all the
// same, and it ends as the credential does.
func TestViewEndsAPlaceWithItsCredential(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	evs := loadSample(t, "credential-theft")
	moved := 0
	for i := range evs {
		if ev := &evs[i]; ev.Source == evidence.SourceProxy && ev.SrcIP == "10.30.8.15" && ev.Decision == evidence.DecisionDeny {
			ev.SrcIP = "10.30.8.16"
			moved++
		}
	}
	if moved == 0 {
		t.Fatal("no refusal from 10.30.8.15 to move")
	}
	attribution.AttributeAll(evs)
	eng := detect.Engine{Rules: rules}
	viewsAlong(t, "credential-theft, refused from another host", eng, detect.NewMemSource(evs))
	r, err := eng.Scan(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := findCap(r.Capabilities.For("agent-12"), capability.Place, "10.30.8.15"); !ok || endAt(p) != "10:34:27" {
		t.Errorf("place 10.30.8.15: %+v, want it ended with px-s228 at 10:34:27", p)
	}
}

// A pod's deletion, recorded by the Kubernetes audit log, ends what ran and
// was written in it: a process started detached in the pod and a crontab
// written there, each its agent's, and not a process of another agent in
// another pod. The view after each event equals the answer made from
// scratch, though the deletion touches no capability by its own key.
func TestPodDeletionEndsWhatRanInIt(t *testing.T) {
	t0 := time.Date(2026, 9, 2, 9, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	evs := []evidence.Event{
		{ID: "s1", Time: at(0), Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: "a", Session: "s-1", Container: "c0ffee0000000001", Sandbox: "sb-1"},
		{ID: "s2", Time: at(0), Source: evidence.SourceLedger, Kind: evidence.KindSessionStart, Agent: "b", Session: "s-2", Container: "c0ffee0000000002", Sandbox: "sb-2"},
		{ID: "x1", Time: at(1), Source: evidence.SourceSensor, Format: "tetragon", Kind: evidence.KindProcExec, Agent: "a", AttributedVia: "container",
			Container: "c0ffee0000000001", Pod: "lab/runner-a", Pid: 4242, ExecID: "e1", Cmdline: "nohup python3 /tmp/keeper.py &"},
		{ID: "w1", Time: at(2), Source: evidence.SourceSensor, Format: "tetragon", Kind: evidence.KindFileWrite, Agent: "a", AttributedVia: "container",
			Container: "c0ffee0000000001", Pod: "lab/runner-a", Path: "/var/spool/cron/crontabs/root"},
		{ID: "x2", Time: at(3), Source: evidence.SourceSensor, Format: "tetragon", Kind: evidence.KindProcExec, Agent: "b", AttributedVia: "container",
			Container: "c0ffee0000000002", Pod: "lab/runner-b", Pid: 777, ExecID: "e2", Cmdline: "nohup sleep 9999 &"},
		{ID: "d1", Time: at(10), Source: evidence.SourceAudit, Format: "k8s-audit", Kind: evidence.KindNetRequest, Method: "delete",
			URL: "/api/v1/namespaces/lab/pods/runner-a", Decision: evidence.DecisionAllow, Status: "200"},
	}
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	if _, ended := viewsAlong(t, "pod deleted", detect.Engine{Rules: rules}, detect.NewMemSource(evs)); ended < 2 {
		t.Errorf("%d capabilities ended between views, want the process and the crontab in the pod", ended)
	}
	r, err := (&detect.Engine{Rules: rules}).Scan(t.Context(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	ends := map[string]string{}
	for _, a := range []string{"a", "b"} {
		for _, c := range r.Capabilities.For(a) {
			if c.Kind == capability.Process || c.Kind == capability.Schedule {
				e, _ := c.Ended()
				ends[a+" "+string(c.Kind)] = e.How
			}
		}
	}
	want := map[string]string{"a process": "pod runner-a deleted", "a schedule": "pod runner-a deleted", "b process": ""}
	if fmt.Sprint(ends) != fmt.Sprint(want) {
		t.Errorf("ends %v, want %v", ends, want)
	}
}
