package evidence

import (
	"context"
	"time"
)

// sourcePage is how many events StoreSource reads per timeline page.
const sourcePage = 2000

// StoreSource lets the detectors and attribution read a store (it has the
// shape of detect.Source and attribution.Source): each query pages through
// the timeline in time order, so that no more than a page of events is
// held at once.
type StoreSource struct {
	Store Store
	// PageSize is how many events a page holds (0: 2000).
	PageSize int
	// Since skips events before it (zero: none).
	Since time.Time
}

// Each calls fn with every event matching query, oldest first. The next
// page is read while fn works through the current one: reading and
// decoding events and the detectors' matching then use both cores.
func (s StoreSource) Each(ctx context.Context, query string, fn func(Event) error) error {
	req := PageRequest{Query: query, Since: s.Since, Limit: s.PageSize}
	if req.Limit <= 0 {
		req.Limit = sourcePage
	}
	ctx, cancel := context.WithCancel(ctx)
	type result struct {
		page *Page
		err  error
	}
	pages := make(chan result, 1)
	done := make(chan struct{})
	// On any return, stop the reader and wait for it: a caller may close
	// the store right after.
	defer func() { cancel(); <-done }()
	go func() {
		defer close(done)
		defer close(pages)
		for {
			page, err := s.Store.Page(ctx, req)
			select {
			case pages <- result{page, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || !page.More || len(page.Events) == 0 {
				return
			}
			req.After = page.Last
		}
	}()
	for r := range pages {
		if r.err != nil {
			return r.err
		}
		for _, ev := range r.page.Events {
			if err := fn(ev); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// Count counts the events matching query (a detect.Counter: the detectors
// read every event once when their queries would read more).
func (s StoreSource) Count(ctx context.Context, query string) (int64, error) {
	h, err := s.Store.Search(ctx, Request{Query: query, Since: s.Since, Limit: 1})
	if err != nil {
		return 0, err
	}
	return int64(h.Total), nil
}
