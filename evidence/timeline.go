package evidence

import (
	"context"
	"encoding/hex"
	"fmt"
	"sort"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// sortField holds sortKey: the one doc value a time-ordered read sorts by.
const sortField = "_ts"

// sortKey orders events by time and then id in one string: seconds (sign
// bit flipped so that earlier is smaller) and nanoseconds in fixed-width
// hex, then the id. Sorting on it reads a single short doc value per hit,
// where the datetime field would visit sixteen prefix-coded terms and the
// id tie-break a stored field.
func sortKey(t time.Time, id string) string {
	var b [24]byte
	sec := uint64(t.Unix()) ^ 1<<63
	ns := uint32(t.Nanosecond())
	var raw [12]byte
	for i := 0; i < 8; i++ {
		raw[i] = byte(sec >> (56 - 8*i))
	}
	for i := 0; i < 4; i++ {
		raw[8+i] = byte(ns >> (24 - 8*i))
	}
	hex.Encode(b[:], raw[:])
	return string(b[:]) + id
}

// timeline lays out the per-minute counts for planning windows: the
// minutes that hold events, in order, with running totals.
type timeline struct {
	total       int64
	first, last time.Time
	minutes     []int64 // Unix minutes holding events, ascending
	cum         []int64 // cum[i]: events in minutes[0..i]
}

func newTimeline(c *Counts) *timeline {
	t := &timeline{total: c.Total, first: c.First, last: c.Last}
	t.minutes = make([]int64, 0, len(c.Minutes))
	for m := range c.Minutes {
		t.minutes = append(t.minutes, m)
	}
	sort.Slice(t.minutes, func(i, j int) bool { return t.minutes[i] < t.minutes[j] })
	t.cum = make([]int64, len(t.minutes))
	var n int64
	for i, m := range t.minutes {
		n += c.Minutes[m]
		t.cum[i] = n
	}
	return t
}

// timeline returns the current layout, built once per landed batch.
func (s *bleveStore) timeline() *timeline {
	s.mu.RLock()
	t := s.tl
	s.mu.RUnlock()
	if t != nil {
		return t
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tl == nil {
		s.tl = newTimeline(&s.counts)
	}
	return s.tl
}

// farFuture ends a window that runs past the last event, farPast starts
// one that runs before the first; both lie beyond any time an event can
// have (years 0-9999).
var (
	farFuture = time.Unix(1<<40, 0)
	farPast   = time.Unix(-1<<40, 0)
)

// windowFwd returns the end of the shortest run of whole minutes from
// start's minute that holds at least want events.
func (t *timeline) windowFwd(start time.Time, want int64) time.Time {
	i := sort.Search(len(t.minutes), func(i int) bool { return t.minutes[i] >= minuteOf(start) })
	var before int64
	if i > 0 {
		before = t.cum[i-1]
	}
	j := sort.Search(len(t.cum), func(j int) bool { return t.cum[j]-before >= want })
	if j >= len(t.cum) {
		return farFuture
	}
	return time.Unix((t.minutes[j]+1)*60, 0)
}

// windowBack returns the start of the shortest run of whole minutes ending
// at start's minute that holds at least want events.
func (t *timeline) windowBack(start time.Time, want int64) time.Time {
	i := sort.Search(len(t.minutes), func(i int) bool { return t.minutes[i] > minuteOf(start) }) - 1
	if i < 0 || t.cum[i] < want {
		return farPast
	}
	top := t.cum[i]
	k := sort.Search(len(t.cum), func(k int) bool { return t.cum[k] > top-want })
	return time.Unix(t.minutes[k]*60, 0)
}

// maxCachedCounts bounds the per-query match counts kept between batches.
const maxCachedCounts = 256

// countCached returns how many events match q (parsed from qs), reusing
// the answer until the next batch lands: paging through a filtered
// timeline asks the same question on every page.
func (s *bleveStore) countCached(ctx context.Context, qs string, q query.Query) (uint64, error) {
	s.mu.RLock()
	n, ok := s.matchCounts[qs]
	s.mu.RUnlock()
	if ok {
		return n, nil
	}
	n, counted := s.countedTotal(q)
	if !counted {
		var err error
		if n, err = s.count(ctx, q); err != nil {
			return 0, err
		}
	}
	s.mu.Lock()
	if s.matchCounts == nil || len(s.matchCounts) >= maxCachedCounts {
		s.matchCounts = map[string]uint64{}
	}
	s.matchCounts[qs] = n
	s.mu.Unlock()
	return n, nil
}

// count runs q for its number of matches only: no hits, no scores.
func (s *bleveStore) count(ctx context.Context, q query.Query) (uint64, error) {
	req := bleve.NewSearchRequestOptions(q, 0, 0, false)
	req.Score = bleve.ScoreNone
	res, err := s.index().SearchInContext(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("count: %w", err)
	}
	return res.Total, nil
}

// between counts the events in the minutes overlapping [since, until); a
// zero bound is open.
func (t *timeline) between(since, until time.Time) int64 {
	i, j := 0, len(t.minutes)
	if !since.IsZero() {
		i = sort.Search(len(t.minutes), func(i int) bool { return t.minutes[i] >= minuteOf(since) })
	}
	if !until.IsZero() {
		j = sort.Search(len(t.minutes), func(j int) bool { return t.minutes[j] > minuteOf(until) })
	}
	if j <= i {
		return 0
	}
	n := t.cum[j-1]
	if i > 0 {
		n -= t.cum[i-1]
	}
	return n
}
