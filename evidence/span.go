package evidence

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Evidence is written by the agent under investigation, and one record
// dated 0001-01-01 or 9999-12-31 would otherwise stretch every view laid
// out over the incident's first and last times (the header's span, the
// sparkline, "the last 30 minutes", a detector's baseline) to ten thousand
// years. Those views use the main span instead: the time holding the bulk
// of the events. The events outside it are counted and named, never
// dropped.

// Outlier rule, in units of the buckets it is given: a bucket lies outside
// the main span when it is farther from the central events (all but the
// first and last hundredth) than their own width, and farther than
// minSlack.
const (
	// outlierShare is the largest share of the events trimmed from each end
	// to find the central ones: one in a hundred (at least one event once
	// there are three). More outliers than that stretch the span again:
	// the rule is for a few.
	outlierShare = 100
	// daySlack is the nearest an outlier can be to the central events, in
	// minutes: a quiet night inside an incident is not an outlier.
	daySlack = 24 * 60
)

// MainRange returns the populated buckets [i, j] that make the main span:
// keys are bucket numbers in ascending order and counts their events. An
// empty input gives i > j.
func MainRange(keys, counts []int64, minSlack int64) (i, j int) {
	if len(keys) == 0 {
		return 0, -1
	}
	var total int64
	for _, n := range counts {
		total += n
	}
	trim := min(max(1, total/outlierShare), (total-1)/2)
	lo, hi := keys[rankBucket(counts, trim)], keys[rankBucket(counts, total-1-trim)]
	slack := max(hi-lo, minSlack)
	i = sort.Search(len(keys), func(k int) bool { return keys[k] >= lo-slack })
	j = sort.Search(len(keys), func(k int) bool { return keys[k] > hi+slack }) - 1
	return i, j
}

// rankBucket is the index of the bucket holding the event of rank r
// (0-based, in time order).
func rankBucket(counts []int64, r int64) int {
	for k, n := range counts {
		if r < n {
			return k
		}
		r -= n
	}
	return len(counts) - 1
}

// Span is the incident's time range: the main span and the events
// outside it.
type Span struct {
	// First and Last bound the main span. They are the first and last
	// event times when nothing lies outside on that side; otherwise
	// Counts.MainSpan gives the bounds of the outermost minute kept, and
	// Exact the times of its outermost events.
	First, Last time.Time
	// Before and After count the events outside the main span.
	Before, After int64
	// Earliest and Latest are the first and last event times of all.
	Earliest, Latest time.Time
}

// Outside is the number of events outside the main span.
func (s Span) Outside() int64 { return s.Before + s.After }

// Query finds the events outside the main span.
// With none outside, it is every event, as before there was a span.
func (s Span) Query() Query {
	var qs []Query
	if s.Before > 0 {
		qs = append(qs, TimeRange(time.Time{}, s.First))
	}
	if s.After > 0 {
		qs = append(qs, After(s.Last))
	}
	if len(qs) == 0 {
		return All()
	}
	return Or(qs...)
}

// OutsideLine names the events outside the main span, for a line of its
// own beside the span ("" when there are none); Query finds them.
func (s Span) OutsideLine() string {
	n := s.Outside()
	if n == 0 {
		return ""
	}
	what := "events"
	if n == 1 {
		what = "event"
	}
	var ends []string
	if s.Before > 0 {
		ends = append(ends, "earliest "+s.Earliest.UTC().Format(time.DateOnly))
	}
	if s.After > 0 {
		ends = append(ends, "latest "+s.Latest.UTC().Format(time.DateOnly))
	}
	return fmt.Sprintf("%d %s outside the main span (%s)", n, what, strings.Join(ends, ", "))
}

// MainSpan finds the main span from the per-minute counts, at the
// precision of a minute where outliers were cut off. Its cost follows the
// number of populated minutes, whatever time they span.
func (c Counts) MainSpan() Span {
	s := Span{First: c.First, Last: c.Last, Earliest: c.First, Latest: c.Last}
	if c.Total == 0 || len(c.Minutes) == 0 {
		return s
	}
	keys := make([]int64, 0, len(c.Minutes))
	for m := range c.Minutes {
		keys = append(keys, m)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	counts := make([]int64, len(keys))
	for k, m := range keys {
		counts[k] = c.Minutes[m]
	}
	i, j := MainRange(keys, counts, daySlack)
	for k := range keys {
		switch {
		case k < i:
			s.Before += counts[k]
		case k > j:
			s.After += counts[k]
		}
	}
	if s.Before > 0 {
		s.First = time.Unix(keys[i]*60, 0).UTC()
	}
	if s.After > 0 {
		s.Last = time.Unix(keys[j]*60+59, 999999999).UTC()
	}
	return s
}

// Exact returns the span with the exact times of the main span's first
// and last events, read from st: one page of one event for each side cut
// off. On an error it returns the span as it was.
func (s Span) Exact(ctx context.Context, st Reader) (Span, error) {
	out := s
	if s.Before > 0 {
		p, err := st.Page(ctx, PageRequest{Since: s.First, Limit: 1})
		if err != nil {
			return s, fmt.Errorf("main span: %w", err)
		}
		if len(p.Events) == 1 {
			out.First = p.Events[0].Time
		}
	}
	if s.After > 0 {
		p, err := st.Page(ctx, PageRequest{Until: s.Last.Add(time.Nanosecond), Backward: true, Limit: 1})
		if err != nil {
			return s, fmt.Errorf("main span: %w", err)
		}
		if len(p.Events) == 1 {
			out.Last = p.Events[0].Time
		}
	}
	return out, nil
}
