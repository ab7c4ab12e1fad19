package detect_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// intent_mismatch holds for an agent's next summary only the actions of
// its window: one that never writes a summary holds a window's, not a
// day's, and the summaries are judged as before, swept at every event or
// not.
func TestIntentHoldsItsWindow(t *testing.T) {
	intent := builtinRules(t, "intent-mismatch")
	r := rand.New(rand.NewPCG(21, 22))
	t0 := time.Date(2026, 8, 11, 8, 0, 0, 0, time.UTC)
	at := map[string]time.Time{"a": t0, "b": t0, "mute": t0}
	var evs []evidence.Event
	for n := range 6000 {
		a := []string{"a", "b", "mute"}[r.IntN(3)]
		at[a] = at[a].Add(time.Duration(r.IntN(40)) * time.Second)
		if r.IntN(200) == 0 {
			at[a] = at[a].Add(20 * time.Minute) // a pause past the window
		}
		ev := evidence.Event{ID: fmt.Sprintf("e%05d", n), Time: at[a], Agent: a, Source: evidence.SourceLedger,
			Kind: evidence.KindCredAccess, Cmdline: "cat /home/agent/.netrc", Path: "/home/agent/.netrc"}
		if a != "mute" && r.IntN(15) == 0 {
			ev.Kind, ev.Cmdline, ev.Path = evidence.KindSummary, "", ""
			ev.Message = []string{"summary: fixed the tests", "summary: read the token and fixed the tests"}[r.IntN(2)]
		}
		evs = append(evs, ev)
	}
	slices.SortStableFunc(evs, func(x, y evidence.Event) int { return x.Time.Compare(y.Time) })
	// what each summary leaves out, from the events: the reads since the
	// agent's previous summary and within the window before it
	var expect []string
	last := map[string]int{}
	for j, ev := range evs {
		if ev.Kind != evidence.KindSummary {
			continue
		}
		ids := []string{ev.ID}
		for _, x := range evs[last[ev.Agent]:j] {
			if x.Agent == ev.Agent && x.Kind == evidence.KindCredAccess && !x.Time.Before(ev.Time.Add(-15*time.Minute)) {
				ids = append(ids, x.ID)
			}
		}
		last[ev.Agent] = j + 1
		if len(ids) > 1 && !strings.Contains(ev.Message, "token") {
			slices.Sort(ids)
			expect = append(expect, fmt.Sprint(ids))
		}
	}
	slices.Sort(expect)
	detect.SweepEvery(t, 1<<40)
	unswept, want := passOver(t, intent, nil, evs, 0)
	if len(expect) < 5 {
		t.Fatalf("%d summaries leave reads out: the day does not test it", len(expect))
	}
	var raw []string
	for _, f := range detect.RawFindings(unswept)[0] {
		ids := slices.Clone(f.Events)
		slices.Sort(ids)
		raw = append(raw, fmt.Sprint(ids))
	}
	slices.Sort(raw)
	if !slices.Equal(raw, expect) {
		t.Errorf("the reads summaries leave out are not those the events show (%d findings, %d expected)", len(raw), len(expect))
	}
	detect.SweepEvery(t, 1)
	p, got := passOver(t, intent, nil, evs, 0)
	sameFindings(t, "swept at every event", got, want)
	// the mute agent reads every 20 s on average: a window holds about 45
	if n := detect.IntentPending(p, "mute"); n > 150 {
		t.Errorf("an agent that writes no summary holds %d actions for one", n)
	}
}
