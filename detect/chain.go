package detect

import (
	"slices"
	"sort"
	"strconv"

	"github.com/cordon-ir/cordon/evidence"
)

// chain is a temporal correlation or an ordered sequence some of whose
// steps are another correlation's findings (Step.Rule). Those findings
// are known only when asked for, so the chain keeps its own steps' hits
// and, each time it is asked, replays them with the inner findings (one
// hit each, at its end) into a fresh correlator of its type.
type chain struct {
	r      *Rule
	group  evidence.Field
	inner  []correlator // per step: the inner rule's correlator, or nil
	direct []keyedHit   // the other steps' hits, in time order
}

type keyedHit struct {
	step int
	g    string
	h    hit
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
	if g := c.r.groupKey(c.group, step, ev); g != "" {
		c.direct = append(c.direct, keyedHit{step: step, g: g, h: hit{t: ev.Time, id: ev.ID, agent: ev.Agent}})
	}
}

func (c *chain) done() []Finding {
	hs := slices.Clone(c.direct)
	inner := map[string]Finding{} // a stand-in id -> the inner finding
	for step, in := range c.inner {
		if in == nil {
			continue
		}
		for _, f := range in.done() {
			if f.group == "" {
				continue
			}
			id := "\x00chain:" + strconv.Itoa(len(inner))
			inner[id] = f
			hs = append(hs, keyedHit{step: step, g: f.group, h: hit{t: f.End, id: id, agent: f.Agent}})
		}
	}
	sort.SliceStable(hs, func(i, j int) bool { return hs[i].h.t.Before(hs[j].h.t) })
	var out []Finding
	if c.r.Correlation.Type == OrderedSequence {
		s := newSequence(c.r)
		for _, k := range hs {
			s.addHit(k.step, k.g, k.h)
		}
		out = s.done()
	} else {
		t := newTemporal(c.r)
		for _, k := range hs {
			t.addHit(k.step, k.g, k.h)
		}
		out = t.done()
	}
	for i := range out {
		out[i] = expand(out[i], inner)
	}
	return out
}

// expand puts an inner finding's events in place of its stand-in id.
func expand(f Finding, inner map[string]Finding) Finding {
	var evs []string
	changed := false
	for _, id := range f.Events {
		in, ok := inner[id]
		if !ok {
			evs = append(evs, id)
			continue
		}
		changed = true
		evs = append(evs, in.Events...)
		if in.Start.Before(f.Start) {
			f.Start = in.Start
		}
	}
	if !changed {
		return f
	}
	f.Events = slices.Compact(evs)
	f.ID = findingID(f, 0)
	return f
}
