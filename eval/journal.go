package eval

import (
	"context"
	"fmt"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// record is what the journal keeps of a scoring: enough to say later
// which suite was scored and what it found, not the whole scorecard.
type record struct {
	Suite     string       `json:"suite"`
	SuiteFile string       `json:"suite_file"`
	Run       string       `json:"run,omitempty"`
	Tried     []string     `json:"tried"`
	Crossed   []string     `json:"crossed"`
	Layers    []LayerScore `json:"layers"`
	Gaps      []string     `json:"gaps"`
	Kill      string       `json:"kill,omitempty"`
}

// Record journals a scorecard on the case, as every use case is: who
// scored which suite, and what it found.
func Record(ctx context.Context, ws *incident.Workspace, actor journal.Actor, sc *Scorecard) (journal.Entry, error) {
	rec := record{Suite: sc.Suite, SuiteFile: sc.SuiteFile, Run: sc.Run, Tried: []string{}, Crossed: sc.Crossings(), Layers: sc.Layers, Gaps: sc.Gaps}
	if rec.Crossed == nil {
		rec.Crossed = []string{}
	}
	for _, t := range sc.Tests {
		if t.Tried {
			rec.Tried = append(rec.Tried, t.ID)
		}
	}
	if !sc.Kill.IsZero() {
		rec.Kill = stamp(sc.Kill)
	}
	of := ""
	if sc.Run != "" {
		of = " on run " + sc.Run
	}
	text := fmt.Sprintf("scored suite %s%s: %d of %d tests tried, %d crossed the boundary, %d controls missed, %d could not tell",
		sc.Suite, of, len(rec.Tried), len(sc.Tests), len(rec.Crossed), sc.Missed(), sc.couldNotTell())
	return ws.RecordEvaluation(ctx, actor, text, rec)
}

func (sc *Scorecard) couldNotTell() int {
	n := 0
	for _, l := range sc.Layers {
		n += l.CouldNotTell
	}
	return n
}
