package detect

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// An episode's finding made from what it cited along the way is the one
// newFinding makes from all its hits, asked after every hit: hits at one
// time, an event given twice (an event is one time), agents other than the first's, a rule by
// agent or by another field, and hits out of time order (then newFinding
// makes it). Nothing an earlier finding cited is written.
func TestEpisodeCitedAlongIsNewFindings(t *testing.T) {
	t0 := time.Date(2026, 8, 11, 9, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(34, 6))
	for round := range 300 {
		rule := &Rule{ID: "count", Title: "count", Severity: "medium", Explain: "{{count}} in {{span}} from {{start}}",
			Correlation: Correlation{Type: EventCount, GroupBy: "agent", Window: time.Minute}}
		if round%2 == 1 {
			rule.Correlation.GroupBy = "dst_host"
		}
		w := newWindowCount(rule)
		ep := &episode{seen: map[string]bool{}}
		at := t0
		var ids []string
		type given struct{ events, copied []string }
		var gave []given
		late, latest := false, at // hits out of order, the latest time
		for i := range 1 + r.IntN(80) {
			last := at
			switch x := r.IntN(20); {
			case x < 8: // the same time as the last
			case x == 8 && round%5 == 0:
				at = at.Add(-time.Second) // out of order
			default:
				at = at.Add(time.Duration(r.IntN(3000)) * time.Millisecond)
			}
			id := "e" + strconv.Itoa(i)
			if len(ids) > 0 && r.IntN(10) == 0 {
				id, at = ids[len(ids)-1], last // the last event again: its id and time
			} else if r.IntN(7) == 0 {
				id = "odd-" + id // an id that does not pack
			}
			ids = append(ids, id)
			agent := "agent-a"
			if r.IntN(15) == 0 {
				agent = "agent-b"
			}
			late = late || at.Before(latest)
			if at.After(latest) {
				latest = at
			}
			ep.add(valuedHit{hit: hit{t: at, id: id, agent: agent}})
			got := w.finding("g", ep)
			want := withValues(rule.finding("g", ep.cites.all(ep.agent), map[string]string{}), ep.values)
			if got.ID != want.ID || got.Agent != want.Agent || !got.Start.Equal(want.Start) || !got.End.Equal(want.End) ||
				got.Explanation != want.Explanation || !slices.Equal(got.Events, want.Events) || got.group != want.group {
				t.Fatalf("round %d, hit %d: cited along\n%+v\nnewFinding\n%+v", round, i, got, want)
			}
			gave = append(gave, given{got.Events, slices.Clone(got.Events)})
		}
		if ep.unsorted != late {
			t.Fatalf("round %d: hits out of order %v, cited by newFinding %v", round, late, ep.unsorted)
		}
		for i, g := range gave {
			if !slices.Equal(g.events, g.copied) {
				t.Fatalf("round %d: the finding after hit %d was written: %v, given as %v", round, i, g.events, g.copied)
			}
		}
	}
}
