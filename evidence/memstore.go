package evidence

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"
)

// NewMemStore returns a Store that keeps its events in memory and answers
// every query with the Matcher: a second implementation of the contract
// (docs/architecture.md, evidence/storetest), for small incidents, tests
// and trying the console on another backend. Nothing outlives the process.
// Ranking is time order: SortScore sorts as SortTime does.
func NewMemStore() Store {
	return &memStore{byID: map[string]int{}, state: map[string][]byte{}, matchers: map[string]*Matcher{}}
}

type memStore struct {
	mu       sync.RWMutex
	evs      []Event // in (time, id) order
	byID     map[string]int
	counts   Counts
	state    map[string][]byte
	matchers map[string]*Matcher // by the query's text
}

func (s *memStore) Index(ctx context.Context, events []Event, state map[string][]byte) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh := 0
	for i := range events {
		ev := events[i]
		if _, ok := s.byID[ev.ID]; ok {
			continue
		}
		ev.Time = ev.Time.UTC()
		s.byID[ev.ID] = -1 // placed below
		s.evs = append(s.evs, ev)
		s.counts.add(&ev)
		fresh++
	}
	if fresh > 0 {
		sort.SliceStable(s.evs, func(i, j int) bool { return before(&s.evs[i], &s.evs[j]) })
		for i := range s.evs {
			s.byID[s.evs[i].ID] = i
		}
	}
	for k, v := range state {
		s.state[k] = append([]byte(nil), v...)
	}
	return fresh, nil
}

func (s *memStore) State(key string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.state[key], nil
}

// matcher compiles q once per text.
func (s *memStore) matcher(q Query) (*Matcher, error) {
	key := q.String()
	s.mu.RLock()
	m, ok := s.matchers[key]
	s.mu.RUnlock()
	if ok {
		return m, nil
	}
	m, err := Compile(q)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.matchers[key] = m
	s.mu.Unlock()
	return m, nil
}

// matching returns the indexes of the events matching q in [since, until)
// (zero bounds open), in time order. The caller holds the read lock.
func (s *memStore) matching(m *Matcher, since, until time.Time) []int {
	var out []int
	for i := range s.evs {
		ev := &s.evs[i]
		if !since.IsZero() && ev.Time.Before(since) || !until.IsZero() && !ev.Time.Before(until) {
			continue
		}
		if m.Match(ev) {
			out = append(out, i)
		}
	}
	return out
}

func (s *memStore) Search(ctx context.Context, r Request) (*Hits, error) {
	began := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	desc, err := r.newestFirst()
	if err != nil {
		return nil, err
	}
	if err := r.Query.check(); err != nil {
		return nil, err
	}
	limit := limitOr(r.Limit)
	m, err := s.matcher(r.Query)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx := s.matching(m, r.Since, r.Until)
	h := &Hits{Total: uint64(len(idx))}
	for k := r.Offset; k < len(idx) && len(h.Events) < limit; k++ {
		i := idx[k]
		if desc {
			i = idx[len(idx)-1-k]
		}
		h.Events = append(h.Events, s.evs[i])
	}
	h.Took = time.Since(began)
	return h, nil
}

func (s *memStore) Page(ctx context.Context, r PageRequest) (*Page, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	limit := limitOr(r.Limit)
	m, err := s.matcher(r.Query)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx := s.matching(m, r.Since, r.Until)
	// in: whether the event at i lies on the page's side of its start
	in := func(ev *Event) bool {
		switch {
		case r.After.ID != "":
			at := Event{Time: r.After.Time, ID: r.After.ID}
			if r.Backward {
				return before(ev, &at)
			}
			return before(&at, ev)
		case r.From.IsZero():
			return true
		case r.Backward:
			return !ev.Time.After(r.From)
		}
		return !ev.Time.Before(r.From)
	}
	var sel []int
	for _, i := range idx {
		if in(&s.evs[i]) {
			sel = append(sel, i)
		}
	}
	more := len(sel) > limit
	if more && r.Backward {
		sel = sel[len(sel)-limit:]
	} else if more {
		sel = sel[:limit]
	}
	evs := make([]Event, len(sel))
	for k, i := range sel {
		evs[k] = s.evs[i]
	}
	return newPage(evs, more), nil
}

func (s *memStore) Facet(ctx context.Context, q Query, since, until time.Time, field string, size int) ([]Count, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if size <= 0 {
		size = 10
	}
	f, ok := LookupField(field)
	if !ok {
		return nil, fmt.Errorf("facet %s: unknown field", field)
	}
	s.mu.RLock()
	if q.IsAll() && since.IsZero() && until.IsZero() && s.counts.Fields[field] != nil {
		defer s.mu.RUnlock()
		return s.counts.Top(field, size), nil
	}
	s.mu.RUnlock()
	m, err := s.matcher(q)
	if err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := Counts{Fields: map[string]map[string]int64{field: {}}}
	for _, i := range s.matching(m, since, until) {
		for _, v := range f.Values(&s.evs[i]) {
			c.Fields[field][v]++
		}
	}
	return c.Top(field, size), nil
}

func (s *memStore) Replace(ctx context.Context, events []Event) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := range events {
		k, ok := s.byID[events[i].ID]
		if !ok {
			continue
		}
		ev := events[i]
		ev.Time = s.evs[k].Time // a replacement keeps its event's time
		s.counts.remove(&s.evs[k])
		s.counts.add(&ev)
		s.evs[k] = ev
		n++
	}
	return n, nil
}

func (s *memStore) Get(ctx context.Context, id string) (Event, error) {
	if err := ctx.Err(); err != nil {
		return Event{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	k, ok := s.byID[id]
	if !ok {
		return Event{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return s.evs[k], nil
}

func (s *memStore) Counts() Counts {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.counts.clone()
}

func (s *memStore) Sync(ctx context.Context) error { return ctx.Err() }

func (s *memStore) Close() error { return nil }
