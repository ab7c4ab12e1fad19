package evidence

import (
	"context"
	"fmt"
	"time"
)

// sourcePage is how many events StoreSource reads per timeline page.
const sourcePage = 2000

// StoreSource lets the detectors and attribution read a store (it has the
// shape of detect.Source and attribution.Source): each query pages through
// the timeline in time order, so that no more than a page of events is
// held at once.
type StoreSource struct {
	Store Reader
	// PageSize is how many events a page holds (0: 2000).
	PageSize int
	// Since skips events before it (zero: none).
	Since time.Time
}

// Each calls fn with every event matching query, oldest first. The next
// page is read while fn works through the current one: reading and
// decoding events and the detectors' matching then use both cores.
//
// The index holds a field longer than MaxIndexed only in part, and
// padding a command line must not hide what follows the padding from a
// detector: the events with a field cut are matched here, on their whole
// stored fields, by the Matcher, and merged in time order with what the
// index answers for the others.
func (s StoreSource) Each(ctx context.Context, q Query, fn func(Event) error) error {
	ctx, cancel := context.WithCancel(ctx)
	size := s.PageSize
	if size <= 0 {
		size = sourcePage
	}
	var readers []*pager
	// On any return, stop the readers and wait for them: a caller may
	// close the store right after.
	defer func() {
		cancel()
		for _, p := range readers {
			p.wait()
		}
	}()
	whole := s.pages(ctx, q, size)
	readers = append(readers, whole)
	if s.Store.Counts().Cut == 0 {
		for {
			ev, ok, err := whole.next(nil)
			if !ok || err != nil {
				return firstErr(err, ctx.Err())
			}
			if err := fn(ev); err != nil {
				return err
			}
		}
	}
	m, err := Compile(q)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrQuery, err)
	}
	cut := s.pages(ctx, cutQuery, cutPage)
	readers = append(readers, cut)
	isWhole := func(ev *Event) bool { return len(ev.Cut) == 0 }
	a, aok, aerr := whole.next(isWhole)
	b, bok, berr := cut.next(m.Match)
	for aok || bok {
		if aerr != nil || berr != nil {
			return firstErr(aerr, berr)
		}
		if aok && (!bok || before(&a, &b)) {
			if err := fn(a); err != nil {
				return err
			}
			a, aok, aerr = whole.next(isWhole)
			continue
		}
		if err := fn(b); err != nil {
			return err
		}
		b, bok, berr = cut.next(m.Match)
	}
	return firstErr(aerr, berr, ctx.Err())
}

// cutQuery finds the events with a field cut in the index; cutPage is how
// many are read at once, each holding up to megabytes.
const (
	cutPage = 16
)

var cutQuery = Exists("cut")

// EachCut calls fn, oldest first, with the events from since on whose
// index holds a field cut (MaxIndexed) and which match query on their
// whole fields: a search of the index answers for all the others.
func EachCut(ctx context.Context, st Store, q Query, since time.Time, fn func(Event) error) error {
	if st.Counts().Cut == 0 {
		return nil
	}
	m, err := Compile(q)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrQuery, err)
	}
	return StoreSource{Store: st, Since: since, PageSize: cutPage}.Each(ctx, cutQuery, func(ev Event) error {
		if len(ev.Cut) > 0 && m.Match(&ev) {
			return fn(ev)
		}
		return nil
	})
}

func before(a, b *Event) bool {
	if !a.Time.Equal(b.Time) {
		return a.Time.Before(b.Time)
	}
	return a.ID < b.ID
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// pager reads a query's timeline pages on its own goroutine, one page
// ahead of its reader.
type pager struct {
	pages chan pageResult
	done  chan struct{}
	cur   []Event
	err   error
}

type pageResult struct {
	page *Page
	err  error
}

func (s StoreSource) pages(ctx context.Context, q Query, limit int) *pager {
	p := &pager{pages: make(chan pageResult, 1), done: make(chan struct{})}
	req := PageRequest{Query: q, Since: s.Since, Limit: limit}
	go func() {
		defer close(p.done)
		defer close(p.pages)
		for {
			page, err := s.Store.Page(ctx, req)
			select {
			case p.pages <- pageResult{page, err}:
			case <-ctx.Done():
				return
			}
			if err != nil || !page.More || len(page.Events) == 0 {
				return
			}
			req.After = page.Last
		}
	}()
	return p
}

// next returns the next event that keep accepts (nil keeps all); ok is
// false at the end or on an error.
func (p *pager) next(keep func(*Event) bool) (Event, bool, error) {
	for {
		for len(p.cur) > 0 {
			ev := p.cur[0]
			p.cur = p.cur[1:]
			if keep == nil || keep(&ev) {
				return ev, true, nil
			}
		}
		if p.err != nil {
			return Event{}, false, p.err
		}
		r, ok := <-p.pages
		if !ok {
			return Event{}, false, nil
		}
		if r.err != nil {
			p.err = r.err
			continue
		}
		p.cur = r.page.Events
	}
}

// wait waits for the reading goroutine to end (its context cancelled or
// its pages read).
func (p *pager) wait() { <-p.done }
