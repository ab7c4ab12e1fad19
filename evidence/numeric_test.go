package evidence

import (
	"math"
	"math/rand"
	"testing"
)

// Every number of a random set lies in a range exactly when one of its
// terms lies in one of the range's term spans.
func TestNumSpansHoldExactlyTheRange(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	pick := func() int64 {
		switch rnd.Intn(6) {
		case 0:
			return rnd.Int63n(600) - 300
		case 1:
			return rnd.Int63n(1 << 20)
		case 2:
			return rnd.Int63() >> uint(rnd.Intn(63))
		case 3:
			return -rnd.Int63() >> uint(rnd.Intn(63))
		case 4:
			return []int64{0, 1, 255, 256, 65535, 65536, math.MaxInt64, math.MinInt64, -1}[rnd.Intn(9)]
		}
		return int64(1) << uint(rnd.Intn(63))
	}
	var values []int64
	for range 3000 {
		values = append(values, pick())
	}
	for range 3000 {
		lo, hi := pick(), pick()
		if rnd.Intn(10) == 0 {
			lo = math.MinInt64
		}
		if rnd.Intn(10) == 0 {
			hi = math.MaxInt64
		}
		spans := numSpans(lo, hi)
		for _, v := range values {
			in := false
			for _, term := range numTerms(v) {
				for _, sp := range spans {
					if sp.lo <= term && term <= sp.hi {
						in = true
					}
				}
			}
			if want := lo <= v && v <= hi; in != want {
				t.Fatalf("%d in [%d, %d]: spans say %v (spans %v, terms %v)", v, lo, hi, in, spans, numTerms(v))
			}
		}
	}
}

func TestIntBoundsOfAQuery(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	for _, c := range []struct {
		lo, hi         *float64
		loIncl, hiIncl bool
		wantLo, wantHi int64
	}{
		{f(1000), nil, false, false, 1001, math.MaxInt64},
		{f(1000), nil, true, false, 1000, math.MaxInt64},
		{f(999.5), f(2000.5), false, false, 1000, 2000},
		{nil, f(10), false, false, math.MinInt64, 9},
		{nil, f(10), false, true, math.MinInt64, 10},
		{f(-5), f(1e300), true, true, -5, math.MaxInt64},
	} {
		lo, hi := intBounds(c.lo, c.hi, c.loIncl, c.hiIncl)
		if lo != c.wantLo || hi != c.wantHi {
			t.Errorf("%v: [%d, %d], want [%d, %d]", c, lo, hi, c.wantLo, c.wantHi)
		}
	}
}

// A number costs a term per 8 bits it has, not Bleve's sixteen.
func TestNumTermsAreFew(t *testing.T) {
	for v, want := range map[int64]int{1: 1, 255: 1, 256: 2, 1 << 20: 3, 5_000_000_000: 5, -7: 1} {
		if got := len(numTerms(v)); got != want {
			t.Errorf("%d: %d terms, want %d", v, got, want)
		}
	}
}
