package detect

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"
)

// A window's kept events come back as they were added: times to the
// nanosecond (an offset from the first), ids, and agents, the group's
// or another's from any point on.
func TestRateBucketKeepsItsHits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	t0 := time.Date(2026, 8, 11, 9, 0, 0, 123456789, time.UTC)
	for round := range 500 {
		var b bucket
		var want []hit
		other := r.IntN(40) // from this event on, some are another agent's
		at := t0
		for i := range 1 + r.IntN(60) {
			at = at.Add(time.Duration(r.Int64N(int64(time.Second))))
			agent := "g"
			if i >= other && r.IntN(2) == 0 {
				agent = "agent-" + strconv.Itoa(r.IntN(3))
			}
			h := hit{t: at, id: "e" + strconv.Itoa(round) + "-" + strconv.Itoa(i), agent: agent}
			b.add("g", h.t, h.id, h.agent)
			want = append(want, h)
		}
		got := b.cited("g")
		if !slices.EqualFunc(got, want, func(x, y hit) bool { return x.t.Equal(y.t) && x.id == y.id && x.agent == y.agent }) {
			t.Fatalf("round %d: cited %v, want %v", round, got, want)
		}
	}
}
