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
