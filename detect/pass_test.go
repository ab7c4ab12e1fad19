package detect_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

var bundledSamples = []string{"busy-benign", "cloud-key-after-kill", "created-workload", "credential-theft",
	"egress-probe-exfil", "eval-run-canaries", "eval-run-contained", "eval-run-kill", "eval-run-sweep", "persistence-after-kill", "shared-volume-token"}

// A Pass fed event by event, asked for its findings and its whole answer
// every few events as a following console asks, ends with the one-shot run's answer: the same
// findings (ids, severities, evidence, explanations) and the same
// capability sets. Asking changes nothing.
func TestPassAskedAlongEndsAsOneShot(t *testing.T) {
	ctx := context.Background()
	for _, name := range bundledSamples {
		eng, src, want := oneShot(t, name)
		p, err := eng.Start(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		asked, n := 0, int64(0)
		err = src.Each(ctx, evidence.All(), func(ev evidence.Event) error {
			n++
			if err := p.Add(&ev); err != nil {
				return err
			}
			switch {
			case p.Events()%50 == 0:
				asked++
				mid := p.Result()
				if mid.Capabilities == nil || mid.Coverage == nil {
					t.Fatalf("%s: an answer along the way has no capability sets", name)
				}
			case p.Events()%7 == 0:
				asked++
				p.Findings()
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if asked == 0 || n == 0 || p.Events() != n {
			t.Fatalf("%s: %d events added of %d, asked %d times", name, p.Events(), n, asked)
		}
		got := p.Done()
		if len(want.Findings) == 0 && name != "busy-benign" {
			t.Fatalf("%s: no findings at all", name)
		}
		sameFindings(t, name, got.Findings, want.Findings)
		if a, b := capsJSON(t, got), capsJSON(t, want); a != b {
			t.Errorf("%s: capability sets differ after asking along the way", name)
		}
	}
}

// An event earlier than one already added is refused with ErrLate, and
// the pass is left as it was: its caller replays.
func TestPassRefusesALateEvent(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	evs := loadSample(t, "credential-theft")
	attribution.AttributeAll(evs)
	src := detect.NewMemSource(evs)
	p, err := (&detect.Engine{Rules: rules}).Start(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	var ordered []evidence.Event
	_ = src.Each(context.Background(), evidence.All(), func(ev evidence.Event) error { ordered = append(ordered, ev); return nil })
	for i := range ordered[10:20] {
		if err := p.Add(&ordered[10+i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Add(&ordered[5]); !errors.Is(err, detect.ErrLate) {
		t.Fatalf("a late event: %v, want ErrLate", err)
	}
	if p.Events() != 10 {
		t.Errorf("%d events counted, want 10", p.Events())
	}
	// the same event again is not late: ties are ordered by id
	if err := p.Add(&ordered[19]); err != nil {
		t.Errorf("the last event again: %v", err)
	}
}

// oneShot is a sample attributed as ingest does, the engine of the
// built-in rules, and its one-shot answer over the sample.
func oneShot(t *testing.T, name string) (detect.Engine, *detect.MemSource, detect.Result) {
	t.Helper()
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	evs := loadSample(t, name)
	attribution.AttributeAll(evs)
	src := detect.NewMemSource(evs)
	eng := detect.Engine{Rules: rules}
	want, err := eng.Scan(context.Background(), src)
	if err != nil {
		t.Fatal(err)
	}
	return eng, src, want
}

func sameFindings(t *testing.T, name string, got, want []detect.Finding) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d findings, want %d", name, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Severity != w.Severity || g.Explanation != w.Explanation || !slices.Equal(g.Events, w.Events) || g.Matches != w.Matches {
			t.Errorf("%s: finding %d is %s %s %q (%d events), want %s %s %q (%d events)", name, i,
				g.ID, g.Severity, g.Explanation, len(g.Events), w.ID, w.Severity, w.Explanation, len(w.Events))
		}
	}
}

func capsJSON(t *testing.T, r detect.Result) string {
	t.Helper()
	b, err := json.Marshal(r.Capabilities.ByAgent())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Pass that learns the sessions as their records come (a stream that
// starts empty) ends with the one-shot answer on every bundled sample.
func TestPassLearnsSessionsAsTheyCome(t *testing.T) {
	ctx := context.Background()
	for _, name := range bundledSamples {
		eng, src, want := oneShot(t, name)
		p, err := eng.Start(ctx, detect.NewMemSource(nil))
		if err != nil {
			t.Fatal(err)
		}
		// asked after every event, as a following console asks: what
		// changes with a session learnt is asked again
		err = src.Each(ctx, evidence.All(), func(ev evidence.Event) error {
			if err := p.Add(&ev); err != nil {
				return err
			}
			p.Findings()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		got := p.Done()
		sameFindings(t, name, got.Findings, want.Findings)
		if a, b := capsJSON(t, got), capsJSON(t, want); a != b {
			t.Errorf("%s: capability sets differ when the sessions are learnt as they come", name)
		}
	}
}

// Every match a correlator gives cites each of its events once, on every
// sample: Episodes takes the first match of an episode as it is.
func TestMatchesCiteEachEventOnce(t *testing.T) {
	matches := 0
	for _, name := range bundledSamples {
		eng, src, _ := oneShot(t, name)
		p, err := eng.Start(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Replay(context.Background(), src); err != nil {
			t.Fatal(err)
		}
		for _, fs := range detect.RawFindings(p) {
			for _, f := range fs {
				matches++
				seen := map[string]bool{}
				for _, id := range f.Events {
					if seen[id] {
						t.Errorf("%s: a %s match of %s cites %s twice", name, f.Detector, f.Agent, id)
					}
					seen[id] = true
				}
			}
		}
	}
	if matches == 0 {
		t.Fatal("no match on any sample")
	}
}

// What the correlators keep of one answer for the next (an agent's
// findings while its matches have not grown, plan-divergence's scan up to
// the first call changed) gives the findings made from nothing, asked
// every few events on every sample, with the sessions known from the
// start and learnt as they come.
func TestKeptFindingsAreFindingsAfresh(t *testing.T) {
	detect.MarkEveryCall(t)
	asked := map[string]int{}
	for _, name := range bundledSamples {
		for _, learnt := range []bool{false, true} {
			keptAlong(t, name, learnt, asked)
		}
	}
	for _, d := range []string{"plan-divergence", "denial-adaptation", "data-exfiltration", "intent-mismatch", "destination-expansion"} {
		if asked[d] == 0 {
			t.Errorf("no %s finding was asked along the way", d)
		}
	}
}

// keptAlong adds a sample's events to a pass (which reads the sessions
// first, or learns them as they come) and compares, every five events,
// its findings with the findings made afresh.
func keptAlong(t *testing.T, name string, learnt bool, asked map[string]int) {
	eng, src, _ := oneShot(t, name)
	keptAlongSource(t, name, eng, src, learnt, asked)
}

func keptAlongSource(t *testing.T, name string, eng detect.Engine, src *detect.MemSource, learnt bool, asked map[string]int) {
	ctx := context.Background()
	var first detect.Source = src
	if learnt {
		first = detect.NewMemSource(nil)
	}
	p, err := eng.Start(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	err = src.Each(ctx, evidence.All(), func(ev evidence.Event) error {
		if err := p.Add(&ev); err != nil {
			return err
		}
		if p.Events()%5 != 0 {
			return nil
		}
		got := p.Findings()
		want := detect.FindingsAfresh(p)
		for _, f := range want {
			asked[f.Detector]++
		}
		sameFindings(t, fmt.Sprintf("%s at event %d (sessions learnt: %v)", name, p.Events(), learnt), got, want)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The same, over each sample followed by itself again two days later
// (ids, call ids and sessions renamed): every agent's behaviour makes a
// second episode, which a correlator keeping the findings of an agent's
// earlier episodes (denial-adaptation) must add to them, not make again
// beside them.
func TestKeptFindingsOfEpisodesAfresh(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	two := 0
	for _, name := range bundledSamples {
		evs := loadSample(t, name)
		n := len(evs)
		for i := range n {
			ev := evs[i]
			ev.Time = ev.Time.Add(48 * time.Hour)
			for _, s := range []*string{&ev.ID, &ev.CallID, &ev.ExecID, &ev.ParentExecID, &ev.Session} {
				if *s != "" {
					*s += "-again"
				}
			}
			evs = append(evs, ev)
		}
		attribution.AttributeAll(evs)
		src := detect.NewMemSource(evs)
		eng := detect.Engine{Rules: rules}
		keptAlongSource(t, name+" twice", eng, src, false, map[string]int{})
		r, err := eng.Scan(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		per := map[string]int{}
		for _, f := range r.Findings {
			if f.Detector == "denial-adaptation" {
				if per[f.Agent]++; per[f.Agent] == 2 {
					two++
				}
			}
		}
	}
	if two == 0 {
		t.Fatal("no agent of any sample made two denial-adaptation episodes: the test does not cover them")
	}
}

// A refusal that names an earlier call by its id (the gateway's ledger)
// changes what plan-divergence made of the calls since: asked before and
// after it, the pass's findings are the findings made afresh, and the
// refusal makes the stretch.
func TestRefusalOfAnEarlierCallIsJudgedAgain(t *testing.T) {
	detect.MarkEveryCall(t)
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	session := evidence.Event{ID: "s", Time: at(0), Source: evidence.SourceLedger, Kind: evidence.KindSessionStart,
		Agent: "a", Session: "sess-a", Objective: "fix the tests in /work/app"}
	call := func(n int, cmd string) evidence.Event {
		return evidence.Event{ID: fmt.Sprintf("e%d", n), Time: at(n), Source: evidence.SourceLedger, Kind: evidence.KindToolCall,
			Agent: "a", Session: "sess-a", Tool: "shell", CallID: fmt.Sprintf("c%d", n), Cmdline: cmd}
	}
	evs := []evidence.Event{session,
		call(1, "cat /etc/shadow"), call(2, "cat /root/.netrc"), call(3, "ls /run/secrets/db"), call(4, "cat /etc/passwd"),
		call(5, "ls /work/app"), call(6, "ls /work/app/src")}
	refusal := evidence.Event{ID: "r5", Time: at(7), Source: evidence.SourceLedger, Kind: evidence.KindPolicyDecision,
		Agent: "a", Session: "sess-a", CallID: "c5", Decision: evidence.DecisionDeny}
	p, err := (&detect.Engine{Rules: rules}).Start(context.Background(), detect.NewMemSource([]evidence.Event{session}))
	if err != nil {
		t.Fatal(err)
	}
	divergent := func(fs []detect.Finding) bool {
		return slices.ContainsFunc(fs, func(f detect.Finding) bool { return f.Detector == "plan-divergence" })
	}
	for i := range evs {
		if err := p.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
		p.Findings() // asked after every event, as a following console asks
	}
	if divergent(p.Findings()) {
		t.Fatal("four calls of six off plan made a plan-divergence finding")
	}
	if err := p.Add(&refusal); err != nil {
		t.Fatal(err)
	}
	got := p.Findings()
	sameFindings(t, "after the refusal of c5", got, detect.FindingsAfresh(p))
	if !divergent(got) {
		t.Error("five of six calls off plan (one refused) made no plan-divergence finding")
	}
}
