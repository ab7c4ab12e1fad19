package evidence

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Page returns a timeline page. Sorting a million hits by time costs about
// half a second, so the pager never does: it uses the per-minute counts kept
// at ingest to pick a time window just wide enough to hold the page, sorts
// only the hits inside it, and widens the window (×8 each time) when a
// selective filter leaves it short.
func (s *bleveStore) Page(ctx context.Context, r PageRequest) (*Page, error) {
	limit := r.Limit
	if limit <= 0 {
		limit = 100
	}
	base, err := s.buildQuery(r.Query, time.Time{}, time.Time{})
	if err != nil {
		return nil, err
	}
	c := s.Counts()
	if c.Total == 0 {
		return &Page{}, nil
	}
	lo, hi := c.First, c.Last.Add(time.Nanosecond)
	if !r.Since.IsZero() && r.Since.After(lo) {
		lo = r.Since
	}
	if !r.Until.IsZero() && r.Until.Before(hi) {
		hi = r.Until
	}
	start := r.From
	if r.After.ID != "" {
		start = r.After.Time
	}
	if start.IsZero() {
		start = lo
		if r.Backward {
			start = hi
		}
	}
	minutes := sortedMinutes(c.Minutes)
	want := int64(2 * limit)
	for {
		var from, to time.Time
		if r.Backward {
			from, to = windowBack(minutes, c.Minutes, start, want), start.Add(time.Nanosecond)
			if from.Before(lo) {
				from = lo
			}
		} else {
			from, to = start, windowFwd(minutes, c.Minutes, start, want)
			if to.After(hi) {
				to = hi
			}
		}
		evs, more, err := s.window(ctx, base, from, to, r.After, r.Backward, limit)
		if err != nil {
			return nil, err
		}
		exhausted := (!r.Backward && !to.Before(hi)) || (r.Backward && !from.After(lo))
		if len(evs) == limit || exhausted {
			return newPage(evs, more || !exhausted), nil
		}
		want *= 8
	}
}

// window queries base within [from, to), ordered by time, after a cursor.
func (s *bleveStore) window(ctx context.Context, base query.Query, from, to time.Time, after Cursor, back bool, limit int) ([]Event, bool, error) {
	q := query.NewConjunctionQuery([]query.Query{base, timeRange(from, to)})
	req := bleve.NewSearchRequestOptions(q, limit+1, 0, false)
	req.Fields = []string{sourceField}
	req.SortByCustom(timeSort(back))
	if after.ID != "" {
		req.SetSearchAfter([]string{after.Time.UTC().Format(time.RFC3339Nano), after.ID})
	}
	res, err := s.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, false, fmt.Errorf("timeline page: %w", err)
	}
	more := len(res.Hits) > limit
	hits := res.Hits
	if more {
		hits = hits[:limit]
	}
	evs := make([]Event, 0, len(hits))
	for _, h := range hits {
		ev, err := decodeHit(h)
		if err != nil {
			return nil, false, err
		}
		evs = append(evs, ev)
	}
	if back {
		for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
			evs[i], evs[j] = evs[j], evs[i]
		}
	}
	return evs, more, nil
}

func newPage(evs []Event, more bool) *Page {
	p := &Page{Events: evs, More: more}
	if len(evs) > 0 {
		p.First = Cursor{Time: evs[0].Time, ID: evs[0].ID}
		p.Last = Cursor{Time: evs[len(evs)-1].Time, ID: evs[len(evs)-1].ID}
	}
	return p
}

func sortedMinutes(m map[int64]int64) []int64 {
	keys := make([]int64, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}

// windowFwd returns the end of the shortest run of whole minutes from
// start's minute that holds at least want events.
func windowFwd(keys []int64, m map[int64]int64, start time.Time, want int64) time.Time {
	i := sort.Search(len(keys), func(i int) bool { return keys[i] >= minuteOf(start) })
	var n int64
	for ; i < len(keys); i++ {
		n += m[keys[i]]
		if n >= want {
			return time.Unix((keys[i]+1)*60, 0)
		}
	}
	return time.Unix(1<<40, 0)
}

// windowBack returns the start of the shortest run of whole minutes ending
// at start's minute that holds at least want events.
func windowBack(keys []int64, m map[int64]int64, start time.Time, want int64) time.Time {
	i := sort.Search(len(keys), func(i int) bool { return keys[i] > minuteOf(start) }) - 1
	var n int64
	for ; i >= 0; i-- {
		n += m[keys[i]]
		if n >= want {
			return time.Unix(keys[i]*60, 0)
		}
	}
	return time.Unix(0, 0)
}
