package detect

import (
	"slices"
	"sort"
	"strconv"

	"github.com/cordon-ir/cordon/evidence"
)

// chain is a correlation some of whose steps are another correlation's
// findings (Step.Rule): a temporal correlation or an ordered sequence,
// or an event_count, value_count or metric correlation that counts
// those findings with its own query's events. The findings are known
// only when asked for, so the chain keeps its own events (direct) and,
// each time it is asked, replays them with the inner findings (one hit
// each, at its end) into a fresh correlator of its type.
type chain struct {
	r      *Rule
	group  evidence.Field
	inner  []correlator // per step: the inner rule's correlator, or nil
	direct []keyedHit   // the other steps' (or the query's) hits, in time order
	// count reads the values of a counting chain's events (its own
	// query's) and stands for the window its replays run in
	count *windowCount
}

type keyedHit struct {
	step int
	g    string
	h    valuedHit
}

// chained reports a rule one of whose steps is another rule.
func chained(r *Rule) bool {
	for _, s := range r.Correlation.Steps {
		if s.Rule != nil {
			return true
		}
	}
	return false
}

func newChain(r *Rule, e *env) (*chain, error) {
	g, _ := evidence.LookupField(r.Correlation.GroupBy)
	c := &chain{r: r, group: g, inner: make([]correlator, len(r.Correlation.Steps))}
	if counting(r.Correlation.Type) {
		c.count = newWindowCount(r)
	}
	for i, s := range r.Correlation.Steps {
		if s.Rule == nil {
			continue
		}
		in, err := newCorrelator(s.Rule, e)
		if err != nil {
			return nil, err
		}
		c.inner[i] = in
	}
	return c, nil
}

func (c *chain) add(step int, ev *evidence.Event) {
	g := c.r.groupKey(c.group, step, ev)
	if g == "" {
		return
	}
	h := valuedHit{hit: hit{t: ev.Time, id: ev.ID, agent: ev.Agent}}
	if c.count != nil {
		var ok bool
		if h, ok = c.count.valued(ev); !ok {
			return
		}
	}
	c.direct = append(c.direct, keyedHit{step: step, g: g, h: h})
}

func (c *chain) done() []Finding {
	hs := slices.Clone(c.direct)
	inner := map[string]Finding{} // a stand-in id -> the inner finding
	regroup, _ := c.r.Correlation.Keys.(Regrouper)
	for step, in := range c.inner {
		if in == nil {
			continue
		}
		for _, f := range in.done() {
			g, v := f.group, ""
			if regroup != nil && g != "" {
				var ok bool
				if g, v, ok = regroup.Regroup(step, g); !ok {
					continue
				}
			}
			if g == "" {
				continue
			}
			id := "\x00chain:" + strconv.Itoa(len(inner))
			h := valuedHit{hit: hit{t: f.End, id: id, agent: f.Agent}}
			if c.count != nil {
				var ok bool
				if h, ok = c.count.valuedAs(h.hit, v); !ok {
					continue
				}
			}
			inner[id] = f
			hs = append(hs, keyedHit{step: step, g: g, h: h})
		}
	}
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].h.t.Before(hs[j].h.t) })
	var out []Finding
	switch {
	case c.count != nil:
		w := newWindowCount(c.r)
		for _, k := range hs {
			w.addHit(k.g, k.h)
		}
		out = w.done()
	case c.r.Correlation.Type == OrderedSequence:
		s := newSequence(c.r)
		for _, k := range hs {
			s.addHit(k.step, k.g, k.h.hit)
		}
		out = s.done()
	default:
		t := newTemporal(c.r)
		for _, k := range hs {
			t.addHit(k.step, k.g, k.h.hit)
		}
		out = t.done()
	}
	for i := range out {
		out[i] = expand(out[i], inner)
	}
	return out
}

// expand puts an inner finding's events in place of its stand-in id,
// each event once: two matches of one correlation may share events.
func expand(f Finding, inner map[string]Finding) Finding {
	var evs []string
	changed := false
	seen := map[string]bool{}
	for _, id := range f.Events {
		in, ok := inner[id]
		if !ok {
			in = Finding{Events: []string{id}, Start: f.Start}
		}
		changed = changed || ok
		for _, ev := range in.Events {
			if !seen[ev] {
				seen[ev] = true
				evs = append(evs, ev)
			}
		}
		if in.Start.Before(f.Start) {
			f.Start = in.Start
		}
	}
	if !changed {
		return f
	}
	f.Events = evs
	f.ID = findingID(f, 0)
	return f
}
