package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// An episode of adaptations extended a few at a time cites what
// newFinding cites of the whole of it, in its order: random hits of a few
// events, an event at several times (a denial's hits carry the denial's
// time), so that one comes again earlier than where it was cited; ids
// packed and not, hits of another agent (kept whole beside the packed).
func TestAdaptationEpisodeExtendedIsNewFinding(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC)
	rule := &Rule{ID: "denial-adaptation"}
	moved := 0
	ids := make([]string, 10)
	for round := range 2000 {
		for i := range ids {
			ids[i] = anyID(r)
		}
		var as matchList
		var all []hit
		first := map[string]time.Time{}
		for range 1 + r.IntN(10) {
			var hits []hit
			for range 1 + r.IntN(3) {
				agent := "a"
				if r.IntN(5) == 0 {
					agent = "b"
				}
				h := hit{t: t0.Add(time.Duration(r.IntN(8)) * time.Second), id: ids[r.IntN(len(ids))], agent: agent}
				if at, ok := first[h.id]; !ok {
					first[h.id] = h.t
				} else if h.t.Before(at) {
					moved++ // to be cited earlier than where it was
				}
				hits = append(hits, h)
			}
			as.add(hits[0].t, hits, "a", "d")
			all = append(all, hits...)
		}
		want := rule.newFinding("a", slices.Clone(all), nil)
		o := newAdaptOpen(0)
		for o.upto < as.len() {
			o.extend(&as, min(as.len(), o.upto+1+r.IntN(3)), "a")
		}
		got := rule.sortedFinding("a", o.hits, nil)
		if !slices.Equal(got.Events, want.Events) || !got.Start.Equal(want.Start) || !got.End.Equal(want.End) {
			t.Fatalf("round %d: extended cites %v, newFinding %v", round, got.Events, want.Events)
		}
	}
	if moved == 0 {
		t.Fatal("no event was cited again: the test does not cover it")
	}
}
