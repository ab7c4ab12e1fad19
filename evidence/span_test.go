package evidence

import (
	"context"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

func countsOf(times ...time.Time) Counts {
	var c Counts
	for i, at := range times {
		c.add(&Event{ID: fmt.Sprintf("e%d", i), Time: at})
	}
	return c
}

func TestMainSpan(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	rnd := rand.New(rand.NewSource(2))
	spread := func(n int, over time.Duration) []time.Time {
		return spreadAt(rnd, t0, n, over)
	}
	year1 := time.Time{}
	year9999 := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	cases := []struct {
		name          string
		times         []time.Time
		before, after int64
	}{
		{"empty", nil, 0, 0},
		{"one event", []time.Time{t0}, 0, 0},
		// one against one: neither is the bulk
		{"two events far apart", []time.Time{t0, year9999}, 0, 0},
		{"two close, one far", []time.Time{t0, t0.Add(time.Minute), year9999}, 0, 1},
		{"an incident with a quiet night", append(spread(300, 3*time.Hour), spreadAt(rnd, t0.Add(23*time.Hour), 30, 3*time.Hour)...), 0, 0},
		{"a busy hour and a record at each end of time", append(spread(1000, time.Hour), year1, year9999), 1, 1},
		{"two a day later than an hour's bulk", append(spread(500, time.Hour), t0.Add(50*time.Hour), t0.Add(51*time.Hour)), 0, 2},
		// more than one in a hundred is not "a few": the span stretches
		{"many far", append(spread(100, time.Hour), year9999, year9999, year9999), 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := countsOf(c.times...)
			sp := cs.MainSpan()
			if sp.Before != c.before || sp.After != c.after {
				t.Fatalf("%d before, %d after the main span, want %d, %d", sp.Before, sp.After, c.before, c.after)
			}
			if !sp.Earliest.Equal(cs.First) || !sp.Latest.Equal(cs.Last) {
				t.Errorf("earliest %v latest %v, want %v %v", sp.Earliest, sp.Latest, cs.First, cs.Last)
			}
			var in int64
			for _, at := range c.times {
				if !at.Before(sp.First) && !at.After(sp.Last) {
					in++
				}
			}
			if in+sp.Outside() != cs.Total {
				t.Errorf("%d inside [%v, %v] and %d outside, of %d", in, sp.First, sp.Last, sp.Outside(), cs.Total)
			}
			if (sp.OutsideLine() == "") != (sp.Outside() == 0) {
				t.Errorf("outside line %q for %d outside", sp.OutsideLine(), sp.Outside())
			}
		})
	}
}

// spreadAt returns n times at random in [from, from+over).
func spreadAt(rnd *rand.Rand, from time.Time, n int, over time.Duration) []time.Time {
	var out []time.Time
	for i := 0; i < n; i++ {
		out = append(out, from.Add(time.Duration(rnd.Int63n(int64(over)))))
	}
	return out
}

// TestOutliersAreFoundByTheirLine: the outside line's query finds exactly
// the events outside the main span, and Exact finds the main span's own
// first and last events.
func TestOutliersAreFoundByTheirLine(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 0, 30, 250e6, time.UTC)
	evs := []Event{
		{ID: "year1", Time: time.Time{}, Source: SourceLedger, Message: "x"},
		{ID: "year9999", Time: time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC), Source: SourceLedger, Message: "x"},
	}
	for i := 0; i < 300; i++ {
		evs = append(evs, Event{ID: fmt.Sprintf("e%03d", i), Time: t0.Add(time.Duration(i) * 7 * time.Second), Source: SourceLedger, Message: "x"})
	}
	st := openWith(t, evs)
	ctx := context.Background()
	sp, err := st.Counts().MainSpan().Exact(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if !sp.First.Equal(t0) || !sp.Last.Equal(t0.Add(299*7*time.Second)) || sp.Before != 1 || sp.After != 1 {
		t.Fatalf("main span %v – %v with %d before and %d after, want %v – %v, 1 and 1", sp.First, sp.Last, sp.Before, sp.After, t0, t0.Add(299*7*time.Second))
	}
	line := sp.OutsideLine()
	for _, want := range []string{"2 events outside the main span", "earliest 0001-01-01", "latest 9999-12-31"} {
		if !strings.Contains(line, want) {
			t.Errorf("outside line %q lacks %q", line, want)
		}
	}
	hits, err := st.Search(ctx, Request{Query: sp.Query()})
	if err != nil {
		t.Fatal(err)
	}
	if hits.Total != 2 || len(hits.Events) != 2 || hits.Events[0].ID != "year1" || hits.Events[1].ID != "year9999" {
		t.Errorf("%s: %d hits %v, want the two outliers", sp.Query(), hits.Total, hits.Events)
	}
}
