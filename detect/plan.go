package detect

import (
	"context"
	"sort"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// plan is what the engine reads: each distinct query once, fanned out to
// every rule stream that asked for it. Reading is what costs on a store
// (an event is decoded from the index), and rules share queries.
type plan struct {
	attribute bool
	order     []evidence.Query      // queries as the Source is asked, first asked first
	reads     map[string][]consumer // query text -> who gets its events
	unions    []*union
}

// consumer is one rule stream fed by a read. filter holds the clauses the
// Source was not asked (see relax); nil when it was asked the whole query.
type consumer struct {
	filter *evidence.Matcher
	full   *evidence.Matcher // the whole query, for a scan of every event
	add    func(*evidence.Event)
}

// union collects the events of a rule with several queries, to feed them
// once each and in time order after every read.
type union struct {
	c    correlator
	seen map[string]bool
	evs  []evidence.Event
}

func (p *plan) addRule(r *Rule, c correlator) {
	if stepped(r.Correlation.Type) {
		for i := range r.Correlation.Steps {
			i, f := i, r.Correlation.Steps[i].Filter
			p.add(r.steps[i].Query(), r.steps[i], func(ev *evidence.Event) {
				if f == nil || f.Match(ev) {
					c.add(i, ev)
				}
			})
		}
		return
	}
	f := r.Filter
	if len(r.match) == 1 {
		p.add(r.match[0].Query(), r.match[0], func(ev *evidence.Event) {
			if f == nil || f.Match(ev) {
				c.add(0, ev)
			}
		})
		return
	}
	u := &union{c: c, seen: map[string]bool{}}
	p.unions = append(p.unions, u)
	for _, m := range r.match {
		p.add(m.Query(), m, func(ev *evidence.Event) {
			if !u.seen[ev.ID] && (f == nil || f.Match(ev)) {
				u.seen[ev.ID] = true
				u.evs = append(u.evs, *ev)
			}
		})
	}
}

// add registers a stream for query q (compiled as m). When the engine
// attributes as it reads, the Source is asked only what it can answer
// before attribution and the rest is checked here.
func (p *plan) add(q evidence.Query, m *evidence.Matcher, fn func(*evidence.Event)) {
	var filter *evidence.Matcher
	if p.attribute {
		if pushed, relaxed := relax(q); relaxed {
			q, filter = pushed, m
		}
	}
	key := q.String()
	if _, ok := p.reads[key]; !ok {
		p.order = append(p.order, q)
	}
	p.reads[key] = append(p.reads[key], consumer{filter: filter, full: m, add: fn})
}

func (p *plan) run(ctx context.Context, src Source, env *env) error {
	// One buffer for every event, shared by the streams it feeds:
	// correlators read it and copy what they keep, so reading a million
	// events does not allocate a million.
	buf := new(evidence.Event)
	read := func(q evidence.Query, cs []consumer, scan bool) error {
		return src.Each(ctx, q, func(ev evidence.Event) error {
			*buf = ev
			if p.attribute && buf.AttributedVia == "" && attribution.Attributable(buf) {
				attribution.Apply(buf, env.id.Attribute(buf))
			}
			for _, c := range cs {
				m := c.filter
				if scan {
					m = c.full
				}
				if m == nil || m.Match(buf) {
					c.add(buf)
				}
			}
			return nil
		})
	}
	scan, err := p.scanAll(ctx, src)
	if err != nil {
		return err
	}
	if scan {
		var all []consumer
		for _, q := range p.order {
			all = append(all, p.reads[q.String()]...)
		}
		if err := read(evidence.All(), all, true); err != nil {
			return err
		}
	}
	for _, q := range p.order {
		if scan {
			break
		}
		if err := read(q, p.reads[q.String()], false); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	for _, u := range p.unions {
		sort.SliceStable(u.evs, func(i, j int) bool {
			if !u.evs[i].Time.Equal(u.evs[j].Time) {
				return u.evs[i].Time.Before(u.evs[j].Time)
			}
			return u.evs[i].ID < u.evs[j].ID
		})
		for i := range u.evs {
			u.c.add(0, &u.evs[i])
		}
		u.evs = nil
	}
	return nil
}

// Counter is a Source that can count a query's events without reading
// them.
type Counter interface {
	Count(ctx context.Context, q evidence.Query) (int64, error)
}

// scanOver is how many times the incident's size the separate reads may
// add up to before one scan of every event, matched in memory, is cheaper:
// reading and decoding an event costs far more than matching it.
const scanOver = 1.25

// scanAll decides whether to read every event once instead of each query
// on its own: when the queries overlap so much that they would read more
// than scanOver times the incident.
func (p *plan) scanAll(ctx context.Context, src Source) (bool, error) {
	c, ok := src.(Counter)
	if !ok || len(p.order) < 2 {
		return false, nil
	}
	all, err := c.Count(ctx, evidence.All())
	if err != nil || all == 0 {
		return false, err
	}
	var sum int64
	for _, q := range p.order {
		n, err := c.Count(ctx, q)
		if err != nil {
			return false, err
		}
		sum += n
	}
	return float64(sum) > scanOver*float64(all), nil
}
