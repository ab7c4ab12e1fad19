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

// attributionFields are set by attribution, so a store that did not keep
// attribution cannot answer clauses on them.
func attributionField(f string) bool {
	return f == "agent" || f == "attributed_via" || f == "tags"
}

// relax returns the part of a query a store can answer before attribution:
// clauses on attribution fields become "any event", and so does a negation
// that names one, so that the store returns a superset and the full query
// is checked in memory after attribution. relaxed reports a change.
func relax(q evidence.Query) (out evidence.Query, relaxed bool) {
	switch q.Op() {
	case evidence.OpAnd, evidence.OpOr:
		subs := make([]evidence.Query, len(q.Subs()))
		for i, s := range q.Subs() {
			var r bool
			subs[i], r = relax(s)
			relaxed = relaxed || r
		}
		if !relaxed {
			return q, false
		}
		if q.Op() == evidence.OpAnd {
			return evidence.And(subs...), true
		}
		return evidence.Or(subs...), true
	case evidence.OpNot:
		if q.HasField(attributionFields...) {
			return evidence.All(), true
		}
		return q, false
	}
	if attributionField(q.Field()) {
		return evidence.All(), true
	}
	return q, false
}

var attributionFields = []string{"agent", "attributed_via", "tags"}
