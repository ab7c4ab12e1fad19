package detect

import (
	"slices"
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
	agents map[string]reachers // destination -> agents reaching it
	// shared are the destinations a second agent reached since done
	// last ran: shared infrastructure now, perhaps, where they were not
	shared []string
	// What done made stands while no session was learnt since (learnt):
	// it judged the first judged contacts; cands are each agent's
	// contacts its allowlist does not name exactly, in time order; infra
	// each destination's verdict as shared infrastructure; made each
	// agent's findings, made again only for the agents in dirty (a
	// contact judged since, or one of its destinations reached by a
	// second agent since). A live pass asks after every round, and at a
	// million events judging every contact again took 70 ms a round.
	learnt int
	judged int
	cands  map[string][]newDest
	infra  map[string]bool
	made   map[string][]Finding
	dirty  map[string]bool
}

// reachers are the agents that reached a destination: most are reached by
// one or a few, which cost no map of their own.
type reachers struct {
	first string
	few   []string        // the next ones, up to maxFewReachers
	many  map[string]bool // the others
}

const maxFewReachers = 8

// add adds agent, saying whether it is new.
func (r *reachers) add(agent string) bool {
	switch {
	case r.first == "":
		r.first = agent
	case r.first == agent || slices.Contains(r.few, agent) || r.many[agent]:
		return false
	case len(r.few) < maxFewReachers:
		r.few = append(r.few, agent)
	case r.many == nil:
		r.many = map[string]bool{agent: true}
	default:
		r.many[agent] = true
	}
	return true
}

func (r reachers) len() int {
	if r.first == "" {
		return 0
	}
	return 1 + len(r.few) + len(r.many)
}

// each calls fn with each agent.
func (r reachers) each(fn func(string)) {
	if r.first != "" {
		fn(r.first)
	}
	for _, a := range r.few {
		fn(a)
	}
	for a := range r.many {
		fn(a)
	}
}

type reach struct {
	h    hit
	dest string
}

// newDest is a first contact with a destination the agent's allowlist
// does not name exactly: new unless it is shared infrastructure.
type newDest struct {
	h    hit
	dest string
	why  string
}

func newExpansion(r *Rule, e *env) *expansion {
	return &expansion{r: r, e: e, agents: map[string]reachers{}}
}

func (*expansion) judgesPeers() {}

func (x *expansion) add(_ int, ev *evidence.Event) {
	dest := destination(ev)
	if ev.Agent == "" || dest == "" || isDenied(ev) {
		return
	}
	by := x.agents[dest]
	if !by.add(ev.Agent) {
		return // reached before: done judges only the first contact
	}
	x.agents[dest] = by
	x.reach = append(x.reach, reach{h: hit{t: ev.Time, id: ev.ID, agent: ev.Agent}, dest: dest})
	if by.len() == 2 {
		x.shared = append(x.shared, dest)
	}
}

// infrastructure reports a destination no allowlist names that several
// agents reach.
func (x *expansion) infrastructure(dest string) bool {
	if x.agents[dest].len() < 2 {
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
	if x.made == nil || x.learnt != x.e.learnt {
		// a session learnt may change any contact's allowlist
		x.learnt, x.judged = x.e.learnt, 0
		x.cands, x.infra, x.made, x.dirty = map[string][]newDest{}, map[string]bool{}, map[string][]Finding{}, map[string]bool{}
	}
	for _, dest := range x.shared {
		if v, ok := x.infra[dest]; ok && !v {
			delete(x.infra, dest)
			x.agents[dest].each(func(agent string) { x.dirty[agent] = true })
		}
	}
	x.shared = x.shared[:0]
	for _, rc := range x.reach[x.judged:] {
		s := x.e.sessionAt(rc.h.agent, rc.h.t)
		if s == nil {
			continue
		}
		exact, wild := allowed(s.egress, rc.dest)
		if exact {
			continue
		}
		why := rc.dest
		if wild {
			why += " (wildcard only)"
		}
		x.cands[rc.h.agent] = append(x.cands[rc.h.agent], newDest{rc.h, rc.dest, why})
		x.dirty[rc.h.agent] = true
	}
	x.judged = len(x.reach)
	var out []Finding
	for _, agent := range sortedKeys(x.cands) {
		if x.dirty[agent] {
			x.made[agent] = x.agentFindings(agent, x.cands[agent])
		}
		out = append(out, x.made[agent]...)
	}
	clear(x.dirty)
	return out
}

// agentFindings are agent's findings from its contacts cands: those not
// with shared infrastructure are its new destinations.
func (x *expansion) agentFindings(agent string, cands []newDest) []Finding {
	var list []newDest
	for _, n := range cands {
		v, ok := x.infra[n.dest]
		if !ok {
			v = x.infrastructure(n.dest)
			x.infra[n.dest] = v
		}
		if !v {
			list = append(list, n)
		}
	}
	var out []Finding
	window := x.r.Correlation.Window
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
	return out
}
