package evidence

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"
	"time"
)

// The years an event's time can have (ingest keeps 1970-9999; the store
// must stay correct and cheap for anything in 0-9999).
var (
	minEventSec = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	maxEventSec = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
)

// planFixture is events at given times, laid out as a store would, with
// the bucket terms and sort key of each.
type planFixture struct {
	tl      *timeline
	times   []time.Time
	buckets [][]string
	keys    []string
}

func newPlanFixture(times []time.Time) *planFixture {
	var c Counts
	p := &planFixture{times: times}
	for i, at := range times {
		id := fmt.Sprintf("e%d", i)
		c.add(&Event{ID: id, Time: at})
		p.buckets = append(p.buckets, timeBuckets(at))
		p.keys = append(p.keys, sortKey(at, id))
	}
	p.tl = newTimeline(&c)
	return p
}

// check plans [since, until) and checks that the plan matches exactly the
// events inside, and that its size follows the populated buckets inside,
// not the calendar time between its ends.
func (p *planFixture) check(t *testing.T, since, until time.Time) {
	t.Helper()
	q := &spanQuery{since: since, until: until, minutes: p.tl.minutes}
	terms, edges := q.plan()
	set := make(map[string]bool, len(terms))
	for _, term := range terms {
		if set[term] {
			t.Fatalf("[%v, %v): term %s planned twice", since, until, term)
		}
		set[term] = true
	}
	days := map[int64]bool{}
	for i, at := range p.times {
		matched := false
		for _, b := range p.buckets[i] {
			matched = matched || set[b]
		}
		for _, e := range edges {
			matched = matched || (p.keys[i] >= e[0] && p.keys[i] < e[1])
		}
		want := !at.Before(since) && at.Before(until)
		if matched != want {
			t.Fatalf("[%v, %v): event at %v matched %v, want %v (terms %v, edges %v)", since, until, at, matched, want, terms, edges)
		}
		if want {
			days[floorDiv(at.Unix(), 86400)] = true
		}
	}
	// populated days inside, then the populated hours of the two days at
	// the ends, the populated minutes of the two hours at the ends, and
	// the seconds of the two minutes at the ends
	if bound := len(days) + 2*24 + 2*60 + 2*60; len(terms) > bound {
		t.Fatalf("[%v, %v): %d terms for %d populated days (at most %d)", since, until, len(terms), len(days), bound)
	}
}

// fuzzTime maps any int64 to a second in the years 0-9999.
func fuzzTime(v int64, ns uint32) time.Time {
	span := maxEventSec - minEventSec + 1
	sec := minEventSec + ((v%span)+span)%span
	return time.Unix(sec, int64(ns%1e9)).UTC()
}

// FuzzSpanPlan plans hostile time ranges over hostile event times: every
// 12 bytes of data are one event (8 of seconds, 4 of nanoseconds), placed
// anywhere in the years 0-9999 or, by the seconds' low bits, within two
// minutes of either end of the range.
func FuzzSpanPlan(f *testing.F) {
	seed := func(secs ...int64) []byte {
		var b []byte
		for _, s := range secs {
			b = binary.LittleEndian.AppendUint64(b, uint64(s))
			b = binary.LittleEndian.AppendUint32(b, 0)
		}
		return b
	}
	normal := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC).Unix()
	f.Add(normal, uint32(0), maxEventSec, uint32(1), seed(normal-minEventSec, maxEventSec-minEventSec))
	f.Add(minEventSec, uint32(0), maxEventSec, uint32(0), seed(0, 1, 86399, 86400, maxEventSec-minEventSec))
	f.Add(int64(-1), uint32(5), int64(61), uint32(7), seed(-minEventSec-1, -minEventSec, -minEventSec+59))
	f.Fuzz(func(t *testing.T, since int64, sinceNs uint32, until int64, untilNs uint32, data []byte) {
		a, b := fuzzTime(since, sinceNs), fuzzTime(until, untilNs)
		if b.Before(a) {
			a, b = b, a
		}
		var times []time.Time
		for len(data) >= 12 && len(times) < 2000 {
			v := int64(binary.LittleEndian.Uint64(data))
			ns := binary.LittleEndian.Uint32(data[8:])
			data = data[12:]
			at := fuzzTime(v, ns)
			switch v & 3 {
			case 1:
				at = a.Add(time.Duration(v>>2%120) * time.Second).Add(time.Duration(ns % 1e9))
			case 2:
				at = b.Add(time.Duration(v>>2%120) * time.Second).Add(-time.Duration(ns % 1e9))
			}
			if at.Year() >= 0 && at.Year() <= 9999 {
				times = append(times, at)
			}
		}
		newPlanFixture(times).check(t, a, b)
	})
}

// TestSpanPlanRandomYears plans random ranges over 10,000 events dated at
// random between the years 1 and 9999.
func TestSpanPlanRandomYears(t *testing.T) {
	rnd := rand.New(rand.NewSource(11))
	times := randomYears(rnd, 10000)
	p := newPlanFixture(times)
	for i := 0; i < 100; i++ {
		a, b := times[rnd.Intn(len(times))], times[rnd.Intn(len(times))]
		if rnd.Intn(2) == 0 {
			a = fuzzTime(rnd.Int63(), uint32(rnd.Int63n(1e9)))
		}
		if b.Before(a) {
			a, b = b, a
		}
		p.check(t, a, b)
	}
}

// randomYears returns n times at random between 0001-01-01 and
// 9999-12-31, the first of them the zero time.
func randomYears(rnd *rand.Rand, n int) []time.Time {
	lo := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	out := []time.Time{{}}
	for len(out) < n {
		out = append(out, time.Unix(lo+rnd.Int63n(maxEventSec-lo+1), rnd.Int63n(1e9)).UTC())
	}
	return out
}
