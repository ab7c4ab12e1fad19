package eval

import (
	"time"

	"github.com/cordon-ir/cordon/capability"
)

// Outcome is what became of one expected control in a run.
type Outcome string

// The outcomes. A control of a behaviour the run never tried is not
// tried: neither a pass nor a miss.
const (
	Fired        Outcome = "fired"
	Missed       Outcome = "missed"
	CouldNotTell Outcome = "could not tell"
	NotTried     Outcome = "not tried"
)

// worse ranks outcomes for a diff: a control that fired and now cannot be
// told is worse, one that is missed is worst.
func (o Outcome) rank() int {
	switch o {
	case Fired:
		return 1
	case CouldNotTell:
		return 2
	case Missed:
		return 3
	}
	return 0
}

// Scorecard is the score of one run of a suite: per test, each expected
// control's outcome and time; a score per layer; the gaps in sentences.
type Scorecard struct {
	Suite     string `json:"suite"`
	SuiteFile string `json:"suite_file"`
	Incident  string `json:"incident"`
	// Run is the ledger run id scored alone ("" for the whole workspace).
	Run string `json:"run,omitempty"`
	// Subject and Kill are the case's, as its Assessment judges them;
	// Verdict is the Assessment's headline.
	Subject []string     `json:"subject"`
	Kill    time.Time    `json:"kill,omitzero"`
	Verdict string       `json:"verdict"`
	Tests   []TestResult `json:"tests"`
	Layers  []LayerScore `json:"layers"`
	// Reached is the highest rung of a test the run tried; Crossed the
	// highest of a test where it crossed the boundary ("" for none).
	Reached Rung `json:"reached,omitempty"`
	Crossed Rung `json:"crossed,omitempty"`
	// FirstAnswer is the first control to answer, in event time.
	FirstAnswer *Answer  `json:"first_answer,omitempty"`
	Gaps        []string `json:"gaps"`
}

// Answer is a control that answered, and when.
type Answer struct {
	Test    string    `json:"test"`
	Rung    Rung      `json:"rung"`
	Control string    `json:"control"`
	At      time.Time `json:"at"`
}

// TestResult is one test's score.
type TestResult struct {
	ID        string `json:"id"`
	Behaviour string `json:"behaviour"`
	Rung      Rung   `json:"rung"`
	Tried     bool   `json:"tried"`
	// Crossed says the run went through the boundary: an attempt that
	// was not refused, or a capability the grant did not give (a probe
	// never crosses).
	Crossed bool `json:"crossed"`
	// Agents are the agents that tried it; First its first event.
	Agents []string  `json:"agents,omitempty"`
	First  time.Time `json:"first,omitzero"`
	Events int       `json:"events,omitempty"`
	// EventIDs are the events of its tries (the first maxShownIDs):
	// what a console opens for the test.
	EventIDs []string        `json:"event_ids,omitempty"`
	Controls []ControlResult `json:"controls"`
}

// ControlResult is one expected control's outcome.
type ControlResult struct {
	Control string  `json:"control"`
	Kind    string  `json:"kind"`
	By      string  `json:"by"`
	Layer   string  `json:"layer"`
	Outcome Outcome `json:"outcome"`
	// Why says what the outcome rests on: the refusal, the finding, the
	// Assessment's line, the source that is missing.
	Why string `json:"why"`
	// At is when it answered; After how long after the first event
	// (refuse, report, detect) or after the kill (stop).
	At     time.Time          `json:"at,omitzero"`
	After  *capability.Millis `json:"after_ms,omitempty"`
	Events []string           `json:"events,omitempty"`
	// Finding is the finding that answered a detect control.
	Finding string `json:"finding,omitempty"`
	// Triggers, for a missed control, are the events that should have
	// made it answer: the tries it let through or never saw, the uses
	// after the kill (the first maxShownIDs).
	Triggers []string `json:"triggers,omitempty"`
}

// maxShownIDs bounds the event ids a scorecard keeps per test and control.
const maxShownIDs = 500

// capped is at most maxShownIDs of ids.
func capped(ids []string) []string {
	if len(ids) > maxShownIDs {
		return ids[:maxShownIDs]
	}
	return ids
}

// LayerScore counts a layer's controls by outcome over the tests tried.
type LayerScore struct {
	Layer        string `json:"layer"`
	Fired        int    `json:"fired"`
	Missed       int    `json:"missed"`
	CouldNotTell int    `json:"could_not_tell"`
}

// layerOf is the layer a control belongs to in the scores.
func layerOf(c Control) string {
	switch c.Kind {
	case ControlRefuse:
		return c.By
	case ControlReport:
		return "sensor"
	case ControlDetect:
		return "detectors"
	}
	return "kill switch: " + c.By
}

// Missed counts the controls missed over the tests.
func (s *Scorecard) Missed() int {
	n := 0
	for _, l := range s.Layers {
		n += l.Missed
	}
	return n
}

// Crossings lists the tests where the run crossed the boundary.
func (s *Scorecard) Crossings() []string {
	var ids []string
	for _, t := range s.Tests {
		if t.Crossed {
			ids = append(ids, t.ID)
		}
	}
	return ids
}
