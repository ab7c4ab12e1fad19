package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cordon-ir/cordon/capability"
)

// ErrWorse is returned by a diff in which a control's outcome got worse:
// what a release of the sandbox is gated on.
var ErrWorse = errors.New("a control got worse")

// Change is one expected control in two runs of a suite, side by side.
type Change struct {
	Test    string  `json:"test"`
	Control string  `json:"control"`
	Before  Outcome `json:"before"`
	After   Outcome `json:"after"`
	// BeforeAfter and AfterAfter are how long the control took in each
	// (after the first event, or after the kill for a stop).
	BeforeTook *capability.Millis `json:"before_after_ms,omitempty"`
	AfterTook  *capability.Millis `json:"after_after_ms,omitempty"`
	// Verdict: worse (fired → could not tell → missed), better, slower,
	// faster, same; "not compared" when a run did not try the test.
	Verdict string `json:"verdict"`
}

// Diff compares two scorecards of the same suite, test by test and
// control by control, in the order of the later one.
type Diff struct {
	Suite   string   `json:"suite"`
	Changes []Change `json:"changes"`
	Worse   int      `json:"worse"`
	Better  int      `json:"better"`
	// Gone and New are tests only the earlier or the later run scored.
	Gone []string `json:"gone,omitempty"`
	New  []string `json:"new,omitempty"`
}

// ReadScorecard reads a scorecard eval run --json wrote.
func ReadScorecard(path string) (*Scorecard, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sc Scorecard
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, fmt.Errorf("%s: not a scorecard (cordon eval run --json writes one): %w", path, err)
	}
	if sc.Suite == "" || sc.Tests == nil {
		return nil, fmt.Errorf("%s: not a scorecard: no suite or tests", path)
	}
	return &sc, nil
}

// Compare diffs two runs of one suite. A control compares only where both
// runs tried its test; a run that did not try it says nothing of it.
func Compare(before, after *Scorecard) (Diff, error) {
	if before.Suite != after.Suite {
		return Diff{}, fmt.Errorf("suites differ: %s and %s", before.Suite, after.Suite)
	}
	d := Diff{Suite: after.Suite, Changes: []Change{}}
	was := map[string]TestResult{}
	for _, t := range before.Tests {
		was[t.ID] = t
	}
	seen := map[string]bool{}
	for _, t := range after.Tests {
		seen[t.ID] = true
		old, ok := was[t.ID]
		if !ok {
			d.New = append(d.New, t.ID)
			continue
		}
		ctl := map[string]ControlResult{}
		for _, c := range old.Controls {
			ctl[c.Control] = c
		}
		for _, c := range t.Controls {
			o, ok := ctl[c.Control]
			if !ok {
				continue
			}
			ch := Change{Test: t.ID, Control: c.Control, Before: o.Outcome, After: c.Outcome, BeforeTook: o.After, AfterTook: c.After}
			ch.Verdict = verdictOf(o, c, old.Tried && t.Tried)
			switch ch.Verdict {
			case "worse":
				d.Worse++
			case "better":
				d.Better++
			}
			d.Changes = append(d.Changes, ch)
		}
	}
	for _, t := range before.Tests {
		if !seen[t.ID] {
			d.Gone = append(d.Gone, t.ID)
		}
	}
	return d, nil
}

func verdictOf(before, after ControlResult, tried bool) string {
	switch {
	case !tried || before.Outcome == NotTried || after.Outcome == NotTried:
		return "not compared"
	case after.Outcome.rank() > before.Outcome.rank():
		return "worse"
	case after.Outcome.rank() < before.Outcome.rank():
		return "better"
	case before.After == nil || after.After == nil:
		return "same"
	case time.Duration(*after.After) > time.Duration(*before.After):
		return "slower"
	case time.Duration(*after.After) < time.Duration(*before.After):
		return "faster"
	}
	return "same"
}
