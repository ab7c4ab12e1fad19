package detect

import (
	"context"
	"sort"

	"github.com/cordon-ir/cordon/evidence"
)

// MemSource is a Source over events held in memory, for tests, benchmarks
// and small incidents. Queries are evaluated by evidence.Matcher.
type MemSource struct {
	events   []evidence.Event
	order    []int32                      // indexes of events in time order (ties by id)
	matchers map[string]*evidence.Matcher // by the query's text
}

// NewMemSource reads events in time order; the slice is kept, not copied,
// and not reordered.
func NewMemSource(events []evidence.Event) *MemSource {
	order := make([]int32, len(events))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := &events[order[i]], &events[order[j]]
		if !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		return a.ID < b.ID
	})
	return &MemSource{events: events, order: order, matchers: map[string]*evidence.Matcher{}}
}

// Each calls fn with every event matching query, in time order.
func (m *MemSource) Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error {
	key := q.String()
	mt, ok := m.matchers[key]
	if !ok {
		var err error
		if mt, err = evidence.Compile(q); err != nil {
			return err
		}
		m.matchers[key] = mt
	}
	for n, i := range m.order {
		if n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if ev := &m.events[i]; mt.Match(ev) {
			if err := fn(*ev); err != nil {
				return err
			}
		}
	}
	return nil
}
