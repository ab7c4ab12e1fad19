package detect_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

var bundledSamples = []string{"busy-benign", "cloud-key-after-kill", "created-workload", "credential-theft",
	"egress-probe-exfil", "eval-run-contained", "eval-run-kill", "eval-run-sweep", "persistence-after-kill", "shared-volume-token"}

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
	paths, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "truth.yaml"))
	if err != nil || len(paths) < 5 {
		t.Fatalf("samples: %v %v", paths, err)
	}
	matches := 0
	for _, path := range paths {
		name := filepath.Base(filepath.Dir(path))
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
