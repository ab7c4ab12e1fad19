package drill

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/cordon-ir/cordon/journal"
)

// speedSteps are the speeds a facilitator steps through, slowest first.
func speedSteps() [6]float64 { return [6]float64{1, 10, 60, 120, 300, 600} }

// StepSpeed is the next speed up (dir > 0) or down (dir < 0) from cur,
// among 1, 10, 60, 120, 300 and 600; cur itself at either end.
func StepSpeed(cur float64, dir int) float64 {
	speeds := speedSteps()
	if dir > 0 {
		for _, s := range speeds {
			if s > cur {
				return s
			}
		}
		return min(cur, MaxSpeed)
	}
	for _, s := range slices.Backward(speeds[:]) {
		if s < cur {
			return s
		}
	}
	return max(cur, 1)
}

// LatestAnswers folds the journal's drill_answer entries: the last answer
// to each question wins, as in the debrief.
func LatestAnswers(entries []journal.Entry) map[string]journal.Entry {
	out := map[string]journal.Entry{}
	for _, e := range entries {
		if q, _, ok := AnswerOf(e); ok {
			out[q] = e
		}
	}
	return out
}

// AnswerOf reads the question and answer of a drill_answer entry.
func AnswerOf(e journal.Entry) (question, answer string, ok bool) {
	var p answerPayload
	if e.Type != journal.EntryDrillAnswer || json.Unmarshal(e.Payload, &p) != nil || p.Question == "" {
		return "", "", false
	}
	return p.Question, p.Answer, true
}

// End moves scenario time to the scenario's end, releases the rest of the
// evidence (firing the injects left), stops the clock, and writes the
// debrief into dir as debrief.md and debrief.json. It returns the debrief
// and the injects that fired on the way.
func (d *Drill) End(ctx context.Context, dir string) (*Debrief, []Inject, error) {
	d.Clock.Pause()
	var fired []Inject
	// Stop at each inject left on the way, so that the journal stamps it
	// at its own time, as a running clock would have.
	for {
		_, at, ok := d.NextInject()
		if !ok || at.After(d.State.End) {
			break
		}
		d.Clock.Jump(at)
		f, err := d.Advance(ctx)
		fired = append(fired, f...)
		if err != nil {
			return nil, fired, err
		}
	}
	d.Clock.Jump(d.State.End)
	f, err := d.Advance(ctx)
	fired = append(fired, f...)
	if err != nil {
		return nil, fired, err
	}
	deb, err := BuildDebrief(ctx, d.WS, d.Script, d.State)
	if err != nil {
		return nil, fired, err
	}
	return deb, fired, WriteDebrief(deb, dir)
}
