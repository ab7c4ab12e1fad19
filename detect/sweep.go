package detect

import (
	"slices"
	"time"
)

// sweeper is a correlator whose per-agent lookups expire with its window
// as the agent's own events come: sweep expires them for every agent at
// now, so an agent gone quiet (a sandbox finished, a session ended)
// holds nothing its window has passed. What an agent's findings cite is
// not a lookup and stays.
type sweeper interface{ sweep(now time.Time) }

// sweepEvery is how many events apart the pass sweeps (a variable for
// the tests).
var sweepEvery int64 = 1 << 16

// sweep runs every sweeper at the time of the event being added.
func (p *Pass) sweep(now time.Time) {
	for _, c := range p.corr {
		if s, ok := c.(sweeper); ok {
			s.sweep(now)
		}
	}
	p.caps.thin(now, p.skew)
}

func (a *adaptation) sweep(now time.Time) {
	from := now.Add(-a.r.Correlation.Window)
	for _, st := range a.agents {
		st.expire(from)
	}
}

func (x *intent) sweep(now time.Time) {
	for _, st := range x.agents {
		st.expire(now.Add(-x.r.Correlation.Window))
	}
}

func (x *escalation) sweep(now time.Time) {
	from := now.Add(-x.r.Correlation.Window)
	for _, st := range x.agents {
		st.expireAll(from)
	}
}

// sweep drops the calls of an agent quiet for longer than the window
// (quiet): a refusal naming one of them would come more than a window
// after it.
func (d *divergence) sweep(now time.Time) {
	from := now.Add(-d.r.Correlation.Window)
	for agent, st := range d.agents {
		if len(st.calls) > 0 && st.at(st.end()-1).t.Before(from) {
			d.quiet(agent, st)
		}
	}
}

// sweep does for every group what its next event would do first: a fixed
// window (neq) whose end has passed is closed and judged; a sliding one
// drops its events older than the window. A group left with nothing (no
// event in its window, no episode open) is forgotten; its next event
// starts it again as it would have found it.
func (w *windowCount) sweep(now time.Time) {
	window := w.r.Correlation.Window
	from := now.Add(-window)
	for _, g := range sortedKeys(w.groups) { // findings emitted in one order
		st := w.groups[g]
		if w.final {
			if len(st.q) > 0 && now.Sub(st.q[0].t) > window {
				if ep := w.closed(st); ep != nil {
					w.emit(g, ep)
				}
				st.q, st.vals = nil, map[string]int{}
			}
		} else {
			st.expire(from)
		}
		if len(st.q) == 0 && st.ep == nil {
			delete(w.groups, g)
		}
	}
}

// sweep makes final, for every group, the sequences of the first-step
// events whose window has passed (every event that could join them has
// come), and drops what no sequence to come can take: those first-step
// events, and later-step events before the next first step's (or before
// now, when there is none). A group left with nothing is forgotten. A
// later step's event that comes with no first step's event kept is put
// aside for a first step's of its own instant, as one past the window of
// the last would be: no other could take it (the test checks the two
// ways agree).
func (s *sequence) sweep(now time.Time) {
	for _, g := range sortedKeys(s.groups) {
		sg := s.groups[g]
		seqs, p := s.find(sg.steps, now)
		sg.final = append(sg.final, seqs...)
		sg.steps[0] = slices.Clone(sg.steps[0][p:])
		bound := now
		if len(sg.steps[0]) > 0 {
			bound = sg.steps[0][0].t
		}
		empty := len(sg.steps[0]) == 0
		for k := 1; k < len(sg.steps); k++ {
			i, _ := slices.BinarySearchFunc(sg.steps[k], bound, func(h hit, t time.Time) int { return h.t.Compare(t) })
			sg.steps[k] = slices.Clone(sg.steps[k][i:])
			empty = empty && len(sg.steps[k]) == 0
		}
		if empty && len(sg.final) == 0 {
			delete(s.groups, g)
		}
	}
}
