package evidence

import (
	"context"
	"time"
)

// Bounds are what one reader may ask of a store: each query's time, and
// how much of an answer it gets. A console served to many (cordon serve)
// reads through them, so that one session cannot exhaust the host.
type Bounds struct {
	// Timeout ends each query (search, page, facet, get) after it.
	Timeout time.Duration
	// MaxHits caps the events one search or page returns (not its total).
	MaxHits int
	// MaxBytes caps the bytes of event text (raw record and message) one
	// answer carries: the events past it are left out (the total stays).
	MaxBytes int
}

// DefaultServeBounds are a served console's: ten seconds a query, ten
// thousand events and 32 MiB an answer. A responder's queries finish in
// milliseconds (docs/performance.md); these bound a hostile one.
var DefaultServeBounds = Bounds{Timeout: 10 * time.Second, MaxHits: 10_000, MaxBytes: 32 << 20}

// Bounded reads st within b; writes pass through unbounded.
func Bounded(st Store, b Bounds) Store { return &bounded{Store: st, b: b} }

type bounded struct {
	Store
	b Bounds
}

func (s *bounded) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.b.Timeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.b.Timeout)
}

func (s *bounded) limit(n int) int {
	if s.b.MaxHits > 0 && (n <= 0 && defaultLimit > s.b.MaxHits || n > s.b.MaxHits) {
		return s.b.MaxHits
	}
	return n
}

// fit leaves out the events past the byte cap.
func (s *bounded) fit(evs []Event) []Event {
	if s.b.MaxBytes <= 0 {
		return evs
	}
	n := 0
	for i := range evs {
		if n += len(evs[i].Raw) + len(evs[i].Message) + len(evs[i].Cmdline) + len(evs[i].URL); n > s.b.MaxBytes {
			return evs[:i]
		}
	}
	return evs
}

func (s *bounded) Search(ctx context.Context, r Request) (*Hits, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	r.Limit = s.limit(r.Limit)
	h, err := s.Store.Search(ctx, r)
	if h != nil {
		h.Events = s.fit(h.Events)
	}
	return h, err
}

func (s *bounded) Page(ctx context.Context, r PageRequest) (*Page, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	r.Limit = s.limit(r.Limit)
	p, err := s.Store.Page(ctx, r)
	if p != nil {
		if kept := s.fit(p.Events); len(kept) < len(p.Events) {
			p.Events, p.More = kept, true
			if len(kept) > 0 {
				p.Last = Cursor{Time: kept[len(kept)-1].Time, ID: kept[len(kept)-1].ID}
			}
		}
	}
	return p, err
}

func (s *bounded) Facet(ctx context.Context, q Query, since, until time.Time, field string, size int) ([]Count, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	return s.Store.Facet(ctx, q, since, until, field, min(size, max(s.b.MaxHits, 1)))
}

func (s *bounded) Get(ctx context.Context, id string) (Event, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	return s.Store.Get(ctx, id)
}
