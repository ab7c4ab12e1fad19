package evidence

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Page returns a timeline page. Sorting a million hits by time costs about
// half a second, so the pager never does: it uses the per-minute counts kept
// at ingest to pick a time window just wide enough to hold the page, sorts
// only the hits inside it, and widens the window when a filter leaves it
// short.
func (s *bleveStore) Page(ctx context.Context, r PageRequest) (*Page, error) {
	limit := limitOr(r.Limit)
	if err := r.Query.check(); err != nil {
		return nil, err
	}
	base, qs := s.parse(r.Query), r.Query.String()
	start := r.From
	if r.After.ID != "" {
		start = r.After.Time
	}
	sel := 1.0
	if base != nil {
		matches, err := s.countCached(ctx, qs, base)
		if err != nil || matches == 0 {
			return &Page{}, err
		}
		sel = float64(matches) / float64(max(1, s.timeline().total))
	}
	evs, more, err := s.ordered(ctx, base, qs, sel, r.Since, r.Until, start, r.After, r.Backward, limit)
	if err != nil {
		return nil, err
	}
	return newPage(evs, more), nil
}

// ordered returns the first n events matching base (nil: any) in time
// order within [since, until), from start or just past a cursor, going
// back in time when back (the result is still oldest first). It reads a
// window of whole minutes expected to hold twice n matches, judging by the
// per-minute counts and sel, the fraction of events that match, and widens
// it fourfold until it holds n or covers the span. more reports whether
// matches may lie beyond the events returned.
func (s *bleveStore) ordered(ctx context.Context, base query.Query, qs string, sel float64, since, until, start time.Time, after Cursor, back bool, n int) ([]Event, bool, error) {
	t := s.timeline()
	if t.total == 0 {
		return nil, false, nil
	}
	lo, hi := t.first, t.last.Add(time.Nanosecond)
	if !since.IsZero() && since.After(lo) {
		lo = since
	}
	if !until.IsZero() && until.Before(hi) {
		hi = until
	}
	if !lo.Before(hi) {
		return nil, false, nil
	}
	if start.IsZero() || start.Before(lo) && !back || start.After(hi) && back {
		start = lo
		if back {
			start = hi
		}
	}
	want := int64(float64(2*n)/max(sel, 1e-9)) + 1
	for {
		var from, to time.Time
		if back {
			from, to = t.windowBack(start, want), start.Add(time.Nanosecond)
			from = maxTime(from, lo)
			to = minTime(to, hi)
		} else {
			from, to = maxTime(start, lo), minTime(t.windowFwd(start, want), hi)
		}
		evs, more, err := s.window(ctx, base, qs, from, to, after, back, n)
		if err != nil {
			return nil, false, err
		}
		exhausted := (!back && !to.Before(hi)) || (back && !from.After(lo))
		if len(evs) == n || exhausted {
			return evs, more || !exhausted, nil
		}
		want *= 4
	}
}

// window queries base (nil: everything; parsed from qs) within [from, to)
// in time order,
// after a cursor. Sorting reads one doc value per hit (the sort key) and
// nothing is scored.
func (s *bleveStore) window(ctx context.Context, base query.Query, qs string, from, to time.Time, after Cursor, back bool, limit int) ([]Event, bool, error) {
	q, err := s.within(ctx, base, qs, from, to)
	if err != nil {
		return nil, false, err
	}
	key := ""
	if after.ID != "" {
		key = sortKey(after.Time, after.ID)
	}
	if evs, more, ok, err := s.collectTimeOrder(ctx, q, key, back, limit); ok || err != nil {
		if back {
			slices.Reverse(evs)
		}
		return evs, more, err
	}
	req := bleve.NewSearchRequestOptions(q, limit+1, 0, false)
	req.Score = bleve.ScoreNone
	req.SortByCustom(search.SortOrder{&search.SortField{Field: sortField, Type: search.SortFieldAsString, Desc: back}})
	if after.ID != "" {
		req.SetSearchAfter([]string{sortKey(after.Time, after.ID)})
	}
	res, err := s.index().SearchInContext(ctx, req)
	if err != nil {
		return nil, false, fmt.Errorf("timeline page: %w", err)
	}
	more := len(res.Hits) > limit
	hits := res.Hits
	if more {
		hits = hits[:limit]
	}
	evs, err := s.events(hits)
	if err != nil {
		return nil, false, err
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

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
