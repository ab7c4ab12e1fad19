package detect

import (
	"strconv"

	"github.com/cordon-ir/cordon/evidence"
)

// expansion is destination_expansion: an agent reaching destinations its
// session's egress allowlist does not name and that it had not reached
// before. It is Go because the allowlist is data of another event (the
// agent's session_start), different for every agent, and because whether
// a destination is new depends on the agent's history and its peers'.
//
// A destination is new for an agent when it is reached (not denied: a
// refusal is boundary probing), not named exactly by the allowlist of
// the agent's session at that time (one admitted only by a wildcard such as
// *.s3.amazonaws.com counts: nobody reviewed that host), not reached by
// the agent before, and not shared infrastructure: a destination no
// allowlist names that two or more agents reach (the proxy, a gateway) is
// the harness's. The condition bounds the distinct new destinations within
// the window.
type expansion struct {
	r *Rule
	e *env
	// reach is each agent's first contact with each destination, in
	// time order: a later one is never new, so it is not kept.
	reach  []reach
	agents map[string]map[string]bool // destination -> agents reaching it
}

type reach struct {
	h    hit
	dest string
}

func newExpansion(r *Rule, e *env) *expansion {
	return &expansion{r: r, e: e, agents: map[string]map[string]bool{}}
}

func (*expansion) judgesPeers() {}

func (x *expansion) add(_ int, ev *evidence.Event) {
	dest := destination(ev)
	if ev.Agent == "" || dest == "" || isDenied(ev) {
		return
	}
	by := x.agents[dest]
	if by == nil {
		by = map[string]bool{}
		x.agents[dest] = by
	}
	if by[ev.Agent] {
		return // reached before: done judges only the first contact
	}
	x.reach = append(x.reach, reach{h: hit{t: ev.Time, id: ev.ID, agent: ev.Agent}, dest: dest})
	by[ev.Agent] = true
}

// infrastructure reports a destination no allowlist names that several
// agents reach.
func (x *expansion) infrastructure(dest string) bool {
	if len(x.agents[dest]) < 2 {
		return false
	}
	for _, list := range x.e.byAgent {
		for _, s := range list {
			if exact, wild := allowed(s.egress, dest); exact || wild {
				return false
			}
		}
	}
	return true
}

func (x *expansion) done() []Finding {
	type newDest struct {
		h    hit
		dest string
		why  string
	}
	seen := map[string]bool{}  // agent + dest
	infra := map[string]bool{} // dest -> verdict cache
	news := map[string][]newDest{}
	for _, rc := range x.reach {
		k := rc.h.agent + "\x00" + rc.dest
		if seen[k] {
			continue
		}
		seen[k] = true
		s := x.e.sessionAt(rc.h.agent, rc.h.t)
		if s == nil {
			continue
		}
		exact, wild := allowed(s.egress, rc.dest)
		if exact {
			continue
		}
		v, ok := infra[rc.dest]
		if !ok {
			v = x.infrastructure(rc.dest)
			infra[rc.dest] = v
		}
		if v {
			continue
		}
		why := rc.dest
		if wild {
			why += " (wildcard only)"
		}
		news[rc.h.agent] = append(news[rc.h.agent], newDest{rc.h, rc.dest, why})
	}
	var out []Finding
	window := x.r.Correlation.Window
	for _, agent := range sortedKeys(news) {
		list := news[agent]
		// A sliding window over first contacts: an episode runs while the
		// window holds enough of them.
		start, epStart := 0, -1
		flush := func(end int) {
			if epStart < 0 {
				return
			}
			var hits []hit
			var vals, dests []string
			for _, n := range list[epStart:end] {
				hits = append(hits, n.h)
				vals = append(vals, n.why)
				dests = appendNew(dests, n.dest)
			}
			out = append(out, withValues(x.r.newFinding(agent, hits, map[string]string{
				"distinct": strconv.Itoa(len(vals)), "values": listValues(vals, 5),
			}), dests))
			epStart = -1
		}
		for i := range list {
			for list[i].h.t.Sub(list[start].h.t) > window {
				start++
			}
			if x.r.Correlation.Condition.Holds(float64(i - start + 1)) {
				if epStart < 0 {
					epStart = start
				}
			} else {
				flush(i)
			}
		}
		flush(len(list))
	}
	return out
}
