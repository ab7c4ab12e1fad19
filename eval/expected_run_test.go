package eval

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// handScorecard is a scorecard written by hand beside a sample
// (expected-scorecard.yaml): not by the generator, not by the scorer.
type handScorecard struct {
	Suite   string   `yaml:"suite"`
	Run     string   `yaml:"run"`
	Subject []string `yaml:"subject"`
	Kill    string   `yaml:"kill"`
	Reached Rung     `yaml:"reached"`
	Crossed Rung     `yaml:"crossed"`
	Tests   map[string]struct {
		First    string      `yaml:"first"`
		Crossed  bool        `yaml:"crossed"`
		Controls [][3]string `yaml:"controls"`
	} `yaml:"tests"`
	Layers map[string][3]int `yaml:"layers"`
	Gaps   []string          `yaml:"gaps"`
}

// TestEvalRunCanariesScorecard scores the evaluation run of
// sample-incidents/eval-run-canaries (run r-eval-1006 only) and asserts
// it against the scorecard written by hand beside it: test by test,
// control by control, with the times; the tests it does not list are not
// tried.
func TestEvalRunCanariesScorecard(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "sample-incidents", "eval-run-canaries", "expected-scorecard.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want handScorecard
	if err := yaml.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	ws := sampleWorkspace(t, "eval-run-canaries")
	defer ws.Close()
	s, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ScoreWith(context.Background(), ws, s, Options{Run: want.Run})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Suite != want.Suite || sc.Run != want.Run || !slices.Equal(sc.Subject, want.Subject) || !near(sc.Kill, at(t, want.Kill)) {
		t.Errorf("suite %s run %s subject %v kill %s; want %s %s %v %s", sc.Suite, sc.Run, sc.Subject, sc.Kill, want.Suite, want.Run, want.Subject, want.Kill)
	}
	if sc.Reached != want.Reached || sc.Crossed != want.Crossed {
		t.Errorf("reached %q crossed %q, want %q %q", sc.Reached, sc.Crossed, want.Reached, want.Crossed)
	}
	for _, tr := range sc.Tests {
		w, ok := want.Tests[tr.ID]
		if !ok {
			if tr.Tried {
				t.Errorf("%s is tried by %v from %s; the run's design has no such probe", tr.ID, tr.Agents, tr.First)
			}
			continue
		}
		if !tr.Tried {
			t.Errorf("%s is not tried", tr.ID)
			continue
		}
		if !slices.Equal(tr.Agents, want.Subject) || !near(tr.First, at(t, w.First)) || tr.Crossed != w.Crossed {
			t.Errorf("%s: by %v from %s crossed %v; want %v from %s crossed %v", tr.ID, tr.Agents, tr.First, tr.Crossed, want.Subject, w.First, w.Crossed)
		}
		if len(tr.EventIDs) == 0 {
			t.Errorf("%s: tried, and no event of its tries is named", tr.ID)
		}
		if len(tr.Controls) != len(w.Controls) {
			t.Errorf("%s: %d controls, want %d", tr.ID, len(tr.Controls), len(w.Controls))
			continue
		}
		for i, wc := range w.Controls {
			c := tr.Controls[i]
			if c.Control != wc[0] || string(c.Outcome) != wc[1] {
				t.Errorf("%s: control %d is %s %s (%s), want %s %s", tr.ID, i, c.Control, c.Outcome, c.Why, wc[0], wc[1])
				continue
			}
			if c.Outcome == Missed && len(c.Triggers) == 0 {
				t.Errorf("%s: %s is missed and names no event that should have made it answer", tr.ID, c.Control)
			}
			switch {
			case wc[2] == "" && !c.At.IsZero():
				t.Errorf("%s: %s answered at %s, want no answer", tr.ID, c.Control, c.At)
			case wc[2] != "" && !near(c.At, at(t, wc[2])):
				t.Errorf("%s: %s answered at %s (%s), want %s", tr.ID, c.Control, c.At.Format(time.TimeOnly), c.Why, wc[2])
			}
		}
	}
	for id := range want.Tests {
		sc.test(t, id) // fails when the suite has no such test
	}
	for _, l := range sc.Layers {
		got := [3]int{l.Fired, l.Missed, l.CouldNotTell}
		if got != want.Layers[l.Layer] {
			t.Errorf("layer %s: fired, missed, could not tell %v, want %v", l.Layer, got, want.Layers[l.Layer])
		}
	}
	var gaps []string
	for _, g := range sc.Gaps {
		gaps = append(gaps, strings.SplitN(g, " ", 2)[0])
	}
	if !slices.Equal(gaps, want.Gaps) {
		t.Errorf("gaps %v, want %v:\n%s", gaps, want.Gaps, strings.Join(sc.Gaps, "\n"))
	}
}
