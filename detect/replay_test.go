package detect_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/bench/benchtest"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// answerJSON is everything a pass's answer says, for comparing two.
func answerJSON(t *testing.T, r detect.Result) string {
	t.Helper()
	b, err := json.Marshal(struct {
		F []detect.Finding
		C any
		V any
		S any
	}{r.Findings, r.Capabilities.ByAgent(), r.Coverage.State(), r.Skews})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// oneByOne is the answer of a pass given each of evs by Add, a copy of
// each at a time: what a follow's rounds do, with nothing read ahead.
func oneByOne(t *testing.T, eng detect.Engine, evs []evidence.Event) detect.Result {
	t.Helper()
	return addedOneByOne(t, eng, evs).Done()
}

// addedOneByOne is a pass given evs one by one, in time order, not yet
// done.
func addedOneByOne(t *testing.T, eng detect.Engine, evs []evidence.Event) *detect.Pass {
	t.Helper()
	p, err := eng.Start(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	evs = slices.Clone(evs)
	slices.SortStableFunc(evs, func(a, b evidence.Event) int { return detect.Compare(&a, &b) })
	for _, ev := range evs {
		if err := p.Add(&ev); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// eachReplayCase runs fn as a subtest of every case a replay is checked
// on: every sample and the bench generator's incident, each attributed at
// ingest and attributed by the pass itself, with the built-in rules.
func eachReplayCase(t *testing.T, fn func(t *testing.T, eng detect.Engine, evs []evidence.Event)) {
	t.Helper()
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "truth.yaml"))
	if err != nil || len(paths) < 5 {
		t.Fatalf("samples: %v %v", paths, err)
	}
	cases := map[string][]evidence.Event{"generated": benchtest.GeneratedEvents(t, 20000)}
	for _, p := range paths {
		name := filepath.Base(filepath.Dir(p))
		cases[name] = loadSample(t, name)
	}
	for name, raw := range cases {
		attributed := append([]evidence.Event(nil), raw...)
		attribution.AttributeAll(attributed)
		t.Run(name+"/attributed at ingest", func(t *testing.T) { fn(t, detect.Engine{Rules: rules}, attributed) })
		t.Run(name+"/attributed by the pass", func(t *testing.T) { fn(t, detect.Engine{Rules: rules, Attribute: true}, raw) })
	}
}

// A replay matches and parses its events ahead of the goroutine that adds
// them (replay.go). Its answer is the one a pass given the same events one
// by one makes, on every sample and on the bench generator's incident:
// attributed at ingest, and attributed by the pass itself, where what
// was read ahead of an event the pass attributes does not hold.
func TestReplayReadAheadGivesTheAnswerOfEventsAddedOneByOne(t *testing.T) {
	eachReplayCase(t, func(t *testing.T, eng detect.Engine, evs []evidence.Event) {
		want := answerJSON(t, oneByOne(t, eng, evs))
		got, err := eng.Scan(context.Background(), detect.NewMemSource(evs))
		if err != nil {
			t.Fatal(err)
		}
		if answerJSON(t, got) != want {
			t.Errorf("a replay's answer differs from the events added one by one")
		}
		// each event handed to the pass as the caller's copy, which
		// the pass reads for itself, not from what was read ahead
		src := detect.NewMemSource(evs)
		p, err := eng.Start(context.Background(), src)
		if err != nil {
			t.Fatal(err)
		}
		err = p.ReplayVia(context.Background(), src, func(p *detect.Pass, ev *evidence.Event) error {
			cp := *ev
			return p.Add(&cp)
		})
		if err != nil {
			t.Fatal(err)
		}
		if answerJSON(t, p.Done()) != want {
			t.Errorf("a replay of copies answers otherwise than the events added one by one")
		}
	})
}

// A rule that reads whose an event is: the pass attributes a proxy's
// request to the agent its sandbox's address was bound to, and a query
// on the agent matches it then, not as the reader read it (no agent).
func TestReplayMatchesWhatThePassAttributes(t *testing.T) {
	evs := loadSample(t, "egress-probe-exfil")
	rule := detect.Rule{ID: "agent-7-egress", Title: "agent-7's requests", Severity: "low", Phase: "detect", Explain: "{{count}}",
		Query: []string{"agent:agent-7 AND kind:net_request"}, Correlation: detect.Correlation{Type: detect.EventCount,
			Window: time.Hour, Condition: detect.Condition{Gte: detect.Num(1)}}}
	eng := detect.Engine{Rules: []detect.Rule{rule}, Attribute: true}
	want := oneByOne(t, eng, evs)
	if len(want.Findings) == 0 || len(want.Findings[0].Events) == 0 {
		t.Fatal("no request of agent-7 found one by one")
	}
	got, err := eng.Scan(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	if answerJSON(t, got) != answerJSON(t, want) {
		t.Errorf("a replay's findings differ from the events added one by one: %d findings, want %d", len(got.Findings), len(want.Findings))
	}
}

// What the reader worked out of an event holds for that event only: a
// caller that adds another in its place (a copy it changed) has it
// matched as Add matches any.
func TestReplayReadAheadHoldsForTheEventReadOnly(t *testing.T) {
	evs := loadSample(t, "egress-probe-exfil")
	attribution.AttributeAll(evs)
	rule := detect.Rule{ID: "renamed", Title: "the caller's events", Severity: "low", Phase: "detect", Explain: "{{count}}",
		Query: []string{"tool:renamed_by_caller"}, Correlation: detect.Correlation{Type: detect.EventCount,
			Window: time.Hour, Condition: detect.Condition{Gte: detect.Num(1)}}}
	eng := detect.Engine{Rules: []detect.Rule{rule}}
	ctx := context.Background()
	p, err := eng.Start(ctx, detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	var cp evidence.Event
	err = p.ReplayVia(ctx, detect.NewMemSource(evs), func(p *detect.Pass, ev *evidence.Event) error {
		cp = *ev
		if cp.Kind == evidence.KindToolCall {
			cp.Tool = "renamed_by_caller"
		}
		return p.Add(&cp)
	})
	if err != nil {
		t.Fatal(err)
	}
	if fs := p.Done().Findings; len(fs) == 0 {
		t.Fatal("no finding of the caller's renamed calls")
	}
}

// A replay whose caller fails midway returns the caller's error, the
// reader stopped, however many batches it had read ahead, and wherever
// the error falls: the reader may be waiting for a batch to be handed
// back, which the adder no longer does once it failed.
func TestReplayStopsAtTheCallersError(t *testing.T) {
	evs := benchtest.GeneratedEvents(t, 8000)
	attribution.AttributeAll(evs)
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	eng := detect.Engine{Rules: rules}
	ctx := context.Background()
	src := detect.NewMemSource(evs)
	stop := errors.New("the caller's error")
	for at := 700; at < len(evs); at += 613 {
		p, err := eng.Start(ctx, src)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		ended := make(chan error, 1)
		go func() {
			ended <- p.ReplayVia(ctx, src, func(p *detect.Pass, ev *evidence.Event) error {
				if n++; n == at {
					return stop
				}
				return p.Add(ev)
			})
		}()
		select {
		case err = <-ended:
		case <-time.After(20 * time.Second):
			t.Fatalf("a replay whose caller failed at event %d did not return", at)
		}
		if !errors.Is(err, stop) || p.Events() != int64(at-1) {
			t.Fatalf("replay ended with %v after %d events, want the caller's error after %d", err, p.Events(), at-1)
		}
	}
}

// On one core a replay reads and adds on one goroutine, with the same
// answer.
func TestReplayOnOneCore(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	evs := loadSample(t, "credential-theft")
	eng := detect.Engine{Rules: rules, Attribute: true}
	want := answerJSON(t, oneByOne(t, eng, evs))
	got, err := eng.Scan(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	if answerJSON(t, got) != want {
		t.Error("a replay on one core differs from the events added one by one")
	}
}

// Nothing is added after Done, so each correlator's state is freed once
// its findings are made, while the pass itself is still held; asked
// again, the pass gives the same findings.
func TestDoneFreesEachCorrelator(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	evs := benchtest.GeneratedEvents(t, 5000)
	attribution.AttributeAll(evs)
	p := addedOneByOne(t, detect.Engine{Rules: rules}, evs)
	collected := detect.CorrelatorsCollected(p)
	r := p.Done()
	for range 5 {
		runtime.GC()
	}
	// one cleanup runs at a time, on its own goroutine
	for wait := time.Now(); collected() < len(rules) && time.Since(wait) < 5*time.Second; {
		time.Sleep(10 * time.Millisecond)
		runtime.GC()
	}
	if n := collected(); n < len(rules) {
		t.Errorf("%d of %d correlators freed after Done", n, len(rules))
	}
	if len(r.Findings) == 0 {
		t.Fatal("no findings")
	}
	// Done ranks the findings, Findings orders them by detector
	keys := func(fs []detect.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, fmt.Sprintf("%s %s %d %v", f.ID, f.Severity, len(f.Events), f.End))
		}
		slices.Sort(out)
		return out
	}
	if again := p.Findings(); !slices.Equal(keys(again), keys(r.Findings)) {
		t.Errorf("asked again after Done:\n%q\nDone gave:\n%q", keys(again), keys(r.Findings))
	}
	runtime.KeepAlive(p)
}
