package detect

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A window's kept events come back as they were added: times to the
// nanosecond (an offset from the first), ids (packed or not: anyID), and
// agents, the group's or another's from any point on; those set aside
// at any point (a late event joins a window set aside) read back before
// those added after.
func TestRateBucketKeepsItsHits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var aside hitsAside
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
			h := hit{t: at, id: anyID(r), agent: agent}
			b.add("g", h.t, h.id, h.agent)
			want = append(want, h)
			if r.IntN(10) == 0 {
				e, ok := aside.put(b.hits)
				if !ok {
					t.Fatalf("round %d: nothing set aside: %v", round, aside.err)
				}
				b.setAside(e)
			}
		}
		got, err := b.cited("g", &aside)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(got, want, func(x, y hit) bool { return x.t.Equal(y.t) && x.id == y.id && x.agent == y.agent }) {
			t.Fatalf("round %d: cited %v, want %v", round, got, want)
		}
	}
}

// anyID is an id as evidence.MakeID makes them, most of the time, or one
// of a shape evidence.PackID must not pack: short, long, upper-case, not hex.
func anyID(r *rand.Rand) string {
	hex := fmt.Sprintf("%016x", r.Uint64())
	switch r.IntN(8) {
	case 0:
		return "e" + strconv.Itoa(r.IntN(1000))
	case 1:
		return strings.ToUpper(hex)
	case 2:
		return hex[:15]
	case 3:
		return hex + "0"
	case 4:
		return hex[:15] + "g"
	}
	return hex
}

// A group's windows are counted in order whatever order they come in, as
// a map of counts would hold them, and each is asked for its count.
func TestRateGroupCountsItsWindowsInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 34))
	for round := range 200 {
		var rg rateGroup
		want := map[int64]int64{}
		k := int64(r.IntN(100))
		for range 1 + r.IntN(300) {
			switch r.IntN(10) {
			case 0:
				k -= int64(r.IntN(20)) // an earlier window
			case 1, 2, 3:
				k += int64(1 + r.IntN(5))
			}
			rg.counted(k)
			want[k]++
		}
		keys := slices.Sorted(maps.Keys(want))
		if !slices.Equal(rg.keys, keys) {
			t.Fatalf("round %d: windows %v, want %v", round, rg.keys, keys)
		}
		for i, k := range keys {
			if rg.counts[i] != want[k] || rg.count(k) != want[k] {
				t.Fatalf("round %d: window %d counts %d (asked: %d), want %d", round, k, rg.counts[i], rg.count(k), want[k])
			}
		}
		if n := rg.count(keys[len(keys)-1] + 1); n != 0 {
			t.Fatalf("round %d: a window never counted counts %d", round, n)
		}
	}
}
