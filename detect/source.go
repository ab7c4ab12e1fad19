package detect

import (
	"context"
	"sort"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// MemSource is a Source over events held in memory, for tests, benchmarks
// and small incidents. Queries are evaluated by evidence.Matcher.
type MemSource struct {
	events   []evidence.Event
	order    []int32 // indexes of events in time order (ties by id)
	matchers map[string]*evidence.Matcher
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
func (m *MemSource) Each(ctx context.Context, query string, fn func(evidence.Event) error) error {
	mt, ok := m.matchers[query]
	if !ok {
		var err error
		if mt, err = evidence.CompileQuery(query); err != nil {
			return err
		}
		m.matchers[query] = mt
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
// it drops clauses on attribution fields, and whatever else would make the
// result narrower without them, so the store returns a superset and the
// full query is checked in memory after attribution. Bleve query strings
// have no grouping: a query is a flat list of required (+), excluded (-)
// and optional clauses, and optional ones are required as a group only
// when no clause is.
func relax(q string) (string, bool) {
	var must, not, should []string
	dropped, droppedShould, hadMust := false, false, false
	for _, c := range evidence.Clauses(q) {
		prefix := ""
		if c[0] == '+' || c[0] == '-' {
			prefix = c[:1]
		}
		hadMust = hadMust || prefix == "+"
		dep := attributionField(evidence.ClauseField(c))
		switch {
		case dep && prefix == "":
			dropped, droppedShould = true, true
		case dep:
			dropped = true
		case prefix == "+":
			must = append(must, c)
		case prefix == "-":
			not = append(not, c)
		default:
			should = append(should, c)
		}
	}
	if !dropped {
		return q, false
	}
	keep := append(must, not...)
	if !hadMust && !droppedShould {
		keep = append(keep, should...)
	}
	return strings.Join(keep, " "), true
}
