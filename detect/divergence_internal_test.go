package detect

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// mergeByTime of a stretch's hits sorted before and the hits added since
// is the stable sort by time of all of them in the order they were made,
// as newFinding sorts them: on random hits whose times collide often.
func TestMergeByTimeIsTheStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC)
	byTime := func(a, b hit) int { return a.t.Compare(b.t) }
	for round := range 2000 {
		var before, add []hit
		for i := range r.IntN(12) {
			before = append(before, hit{t: t0.Add(time.Duration(r.IntN(6)) * time.Second), id: "b" + strconv.Itoa(i)})
		}
		for i := range r.IntN(12) {
			add = append(add, hit{t: t0.Add(time.Duration(r.IntN(8)) * time.Second), id: "a" + strconv.Itoa(i)})
		}
		want := slices.Concat(before, add)
		slices.SortStableFunc(want, byTime)
		sorted := slices.Clone(before)
		slices.SortStableFunc(sorted, byTime)
		got := mergeByTime(sorted, slices.Clone(add))
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: merged %v, want %v", round, got, want)
		}
	}
}

// A citeList merged round after round holds what mergeByTime makes of
// the same hits, each given back as it was: ids of every shape (anyID),
// hits of another agent, times in another zone, before 1970, and beyond
// the nanoseconds a packed hit keeps (after 2116, before 1824: ordered by
// their own times), and times that collide.
func TestCiteListIsMergeByTime(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	zone := time.FixedZone("X", 2*3600)
	anyTime := func() time.Time {
		at := time.Date(2026, 8, 11, 10, 0, r.IntN(8), r.IntN(3)*500, time.UTC)
		switch r.IntN(12) {
		case 0:
			return at.In(zone)
		case 1:
			return time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
		case 2:
			return time.Date(1960, 1, 1, 0, 0, r.IntN(8), 1, time.UTC)
		case 3:
			return time.Date(2200+r.IntN(3), 1, 1, 0, 0, r.IntN(8), r.IntN(3), time.UTC)
		case 4:
			return time.Date(1700+r.IntN(3), 1, 1, 0, 0, r.IntN(8), r.IntN(3), time.UTC)
		}
		return at
	}
	same := func(a, b hit) bool {
		return a.t.Equal(b.t) && a.t.Location().String() == b.t.Location().String() && a.id == b.id && a.agent == b.agent
	}
	for round := range 500 {
		var l citeList
		var want []hit
		for range 1 + r.IntN(5) {
			var add []hit
			for range r.IntN(12) {
				agent := "a"
				if r.IntN(6) == 0 {
					agent = "b"
				}
				add = append(add, hit{t: anyTime(), id: anyID(r), agent: agent})
			}
			want = mergeByTime(want, slices.Clone(add))
			if r.IntN(3) == 0 {
				l = l.clone() // a copy merges as the list would
			}
			l.merge(add, "a")
		}
		if got := l.all("a"); !slices.EqualFunc(got, want, same) {
			t.Fatalf("round %d: the list gives %v, want %v", round, got, want)
		}
	}
}

// An open stretch cited at every answer cites what a finding made afresh
// of its hits would (sortedFinding), whether the hits merged since
// followed those it cited or fell among them; and what an answer cited
// before is never rewritten.
func TestOpenStretchCitesAsAfresh(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	t0 := time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC)
	rule := &Rule{ID: "plan-divergence"}
	for round := range 300 {
		var o divOpen
		var all []hit
		type given struct{ events, copy []string }
		var answers []given
		last := 0 // seconds: most hits follow the last, some fall before it
		for range 1 + r.IntN(6) {
			var add []hit
			for range r.IntN(10) {
				at := last + r.IntN(4)
				if r.IntN(8) == 0 {
					at = r.IntN(last + 1)
				}
				last = max(last, at)
				add = append(add, hit{t: t0.Add(time.Duration(at) * time.Second), id: anyID(r), agent: "a"})
			}
			all = mergeByTime(all, slices.Clone(add))
			o.merge(add, "a")
			events, start, end := o.cite("a")
			want := rule.sortedFinding("a", all, nil)
			if !slices.Equal(events, want.Events) || !start.Equal(want.Start) || !end.Equal(want.End) {
				t.Fatalf("round %d: cited %v from %v to %v, want %v from %v to %v", round, events, start, end, want.Events, want.Start, want.End)
			}
			answers = append(answers, given{events, slices.Clone(events)})
		}
		for i, a := range answers {
			if !slices.Equal(a.events, a.copy) {
				t.Fatalf("round %d: answer %d's events rewritten: %v, was %v", round, i, a.events, a.copy)
			}
		}
	}
}
