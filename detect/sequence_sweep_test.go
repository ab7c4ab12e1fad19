package detect_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// A sweep makes final the sequences whose first step's window has passed
// and drops the step events no sequence to come can take: swept at every
// event, an ordered sequence finds what it finds unswept (reads, sends
// and runs at random, many of one instant, in three steps and in two),
// and holds a few windows' events instead of the day's.
func TestSequenceSweptFindsTheSame(t *testing.T) {
	for _, steps := range [][]string{{"read", "send", "run"}, {"read", "send"}} {
		for _, gte := range []float64{1, 2} {
			var ss []detect.Step
			for _, s := range steps {
				ss = append(ss, detect.Step{Name: s, Query: "kind:tool_call", Filter: toolFilter(s)})
			}
			r := detect.Rule{ID: "seq", Title: "seq", Severity: "high", Phase: "detect", Explain: "{{sequences}}",
				Correlation: detect.Correlation{Type: detect.OrderedSequence, Window: time.Minute,
					Condition: detect.Condition{Gte: detect.Num(gte)}, Steps: ss}}
			rnd := rand.New(rand.NewPCG(uint64(len(steps)), uint64(gte)))
			var evs []evidence.Event
			sec := 0.0
			for n := range 8000 {
				if rnd.IntN(3) > 0 {
					sec += float64(rnd.IntN(25)) // a third of the events share an instant
				}
				if rnd.IntN(400) == 0 {
					sec += 600 // a pause
				}
				ev := mk(sec, []string{"agent-1", "agent-2"}[rnd.IntN(2)], "tool_call", "tool", []string{"read", "send", "run"}[rnd.IntN(3)])
				ev.ID = fmt.Sprintf("e%05d", n)
				evs = append(evs, ev)
			}
			name := fmt.Sprintf("%d steps, at least %v", len(steps), gte)
			detect.SweepEvery(t, 1<<40)
			unswept, want := passOver(t, []detect.Rule{r}, nil, evs, 0)
			if len(want) < 5 {
				t.Fatalf("%s: %d findings: the day does not test it", name, len(want))
			}
			detect.SweepEvery(t, 1)
			swept, got := passOver(t, []detect.Rule{r}, nil, evs, 0)
			sameFindings(t, name, got, want)
			if held, all := detect.SequenceHeld(swept), detect.SequenceHeld(unswept); held > 200 || all < 4000 {
				t.Errorf("%s: %d step events held swept, %d unswept", name, held, all)
			}
		}
	}
}
