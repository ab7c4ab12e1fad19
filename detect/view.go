package detect

import (
	"slices"
	"time"

	"github.com/cordon-ir/cordon/capability"
)

// View is the pass's answer as Result gives it, with the ranking of its
// agents and what each holds, made to be read by other goroutines while
// the pass goes on. Nothing in it may be changed: successive views share
// every part that did not change.
type View struct {
	Result
	// Ranks is the one ranking (RankAgents) over Result, which its
	// findings are grouped by (SortRanked).
	Ranks []AgentRank
	// Holdings is the Holding of every agent with a capability set (the
	// zero Holding for one that acquired nothing).
	Holdings map[string]capability.Holding
	// Standings are the agents' its harness stopped (Standings).
	Standings map[string]capability.Standing
}

// viewParts is what the last view kept of each agent, to be shared by
// the next where the agent did not change.
type viewParts struct {
	caps map[string][]*capability.Capability // finished, sorted
	// fin is, per agent, the finished copy in caps of each capability of
	// the scan, for the next view to share where it did not change; src
	// the capability of the scan each in caps is a copy of, in its order
	fin      map[string]map[*capability.Capability]*capability.Capability
	src      map[string][]*capability.Capability
	holdings map[string]capability.Holding
	skews    []Skew
	set      *capability.Set // caps as a set
}

// View is Result made from the last view: only the capability sets of
// the agents whose capabilities changed since are copied and finished,
// every other agent's is the last view's. It equals what Result gives
// for the same events. An end recorded (an issuer's or a person's) makes
// the capabilities whose finishing reads its key copied again, wherever
// their agents; a credential read still waiting for its result is taken
// on copies of its reader's capabilities; what every set's finishing
// reads (a clock skew, a session learnt) changing makes every set copied
// again.
func (p *Pass) View() View {
	findings := p.Findings()
	set, holdings, skews := p.viewSets()
	cov := p.caps.cov.Clone()
	standings := p.standings(set, cov)
	ranks := RankAgents(RankInput{Findings: findings, Holdings: holdings, Standings: standings})
	SortRanked(findings, ranks)
	return View{Result: Result{Findings: findings, Capabilities: set, Coverage: cov, Skews: skews, Kills: p.HarnessKills()},
		Ranks: ranks, Holdings: holdings, Standings: standings}
}

// HarnessKill names what recorded the kill of a Standing from Standings.
const HarnessKill = "the harness's ledger (session ended: killed)"

// Standings is, for every agent its harness stopped (HarnessKills), the
// agent's Standing in its own Assessment at that kill, on the capability
// sets of the last View or Holdings: where no case records a kill (the
// fleet's watchers), what says "contained". Nil before either was made.
func (p *Pass) Standings() map[string]capability.Standing {
	if p.view == nil {
		return nil
	}
	return p.standings(p.view.set, p.caps.cov.Clone())
}

func (p *Pass) standings(set *capability.Set, cov *capability.Coverage) map[string]capability.Standing {
	return StandingsAt(Result{Capabilities: set, Coverage: cov}, p.HarnessKills())
}

// HarnessKills is every agent its harness had stopped by the last event
// added, with the time: each of its sessions had ended, the last by the
// gateway's ledger with reason killed (a record of the issuer of the
// session, never of the agent).
func (p *Pass) HarnessKills() map[string]time.Time { return p.env.harnessKills(p.last.Time) }

// StandingsAt is each agent's of kills Standing in its own Assessment at
// its kill (capability.Assess, the one decider), on r's capability sets
// and coverage.
func StandingsAt(r Result, kills map[string]time.Time) map[string]capability.Standing {
	if len(kills) == 0 {
		return nil
	}
	out := make(map[string]capability.Standing, len(kills))
	for agent, kill := range kills {
		a := capability.Assess(r.Capabilities, []string{agent}, kill, time.Time{}, r.Coverage)
		if st, ok := a.Standing(agent, HarnessKill); ok {
			out[agent] = st
		}
	}
	return out
}

// Holdings is View's Holdings alone, made as View makes them (and kept
// for the next View to share): without the findings and their ranking,
// which a watcher that answers no verdicts does not read.
func (p *Pass) Holdings() map[string]capability.Holding {
	_, holdings, _ := p.viewSets()
	return holdings
}

// viewSets makes the capability sets, holdings and skews of a view from
// the last one's, and keeps them for the next.
func (p *Pass) viewSets() (*capability.Set, map[string]capability.Holding, []Skew) {
	skews := p.skew.done()
	s := p.caps
	prev := p.view
	next := &viewParts{caps: make(map[string][]*capability.Capability, len(s.caps)),
		fin:      make(map[string]map[*capability.Capability]*capability.Capability, len(s.caps)),
		src:      make(map[string][]*capability.Capability, len(s.caps)),
		holdings: make(map[string]capability.Holding, len(s.caps)), skews: skews}
	s.touchEnded()
	var dirty []string
	// the last view's finished copies, shared where nothing changed
	var was map[string]map[*capability.Capability]*capability.Capability
	var wasList, wasSrc map[string][]*capability.Capability
	// a read waiting for its result is taken, as done takes it, on copies
	// of its reader's capabilities; the next view finishes the reader's
	// set again from the scan
	readers := s.readers()
	for a := range readers {
		s.touched[a] = true
	}
	switch {
	case prev == nil || s.touchedAll || !slices.Equal(prev.skews, skews):
		for a := range s.caps {
			dirty = append(dirty, a)
		}
		s.touchedAll = false
	default:
		was, wasList, wasSrc = prev.fin, prev.caps, prev.src
		for a, list := range prev.caps {
			if !s.touched[a] {
				next.caps[a], next.holdings[a], next.fin[a], next.src[a] = list, prev.holdings[a], prev.fin[a], prev.src[a]
			}
		}
		for a := range s.touched {
			if _, ok := s.caps[a]; ok {
				dirty = append(dirty, a)
			}
		}
	}
	for a := range readers {
		if !slices.Contains(dirty, a) {
			dirty = append(dirty, a)
		}
	}
	clear(s.touched)
	by := skewsBySource(skews)
	var pending *capScan
	if len(readers) > 0 {
		pending = s.withPendingReads(readers)
	}
	for _, a := range dirty {
		switch _, done := next.caps[a]; {
		case done:
		case readers[a]:
			next.caps[a], _, _ = pending.finishedCopy(a, by, nil, nil, nil)
			next.fin[a] = nil // of the copies: nothing the next view shares
			s.touched[a] = true
		default:
			next.caps[a], next.fin[a], next.src[a] = s.finishedCopy(a, by, was[a], wasList[a], wasSrc[a])
		}
	}
	clear(s.changed)
	clear(s.changedOf)
	set := capability.NewSortedSet(next.caps)
	next.set = set
	for _, a := range dirty {
		next.holdings[a] = set.Holding(a)
	}
	p.view = next
	return set, next.holdings, skews
}

// finishedCopy is agent's capability set as done gives it, finished on
// copies of its capabilities: the scan is not changed. A copy shares the
// uses in the making with the scan until finishing settles them into a
// list of its own (CloneSharingUses). A capability that did not change
// since the last view, whose finished copy was (was: by the scan's
// capability), is that copy: finishing it reads only it and what every
// set's finishing reads, which changing makes no copy shared (viewSets).
// A place an agent acted from is finished again all the same: its end is
// its credentials'. It returns the set, sorted, each capability's
// finished copy, and the capability of the scan each in the set is a
// copy of. The copies taken from the last view's set (wasList, copies of
// wasSrc) keep their order in it, and the new ones are merged in: a busy
// agent's set is mostly what it was.
func (s *capScan) finishedCopy(agent string, by map[string]Skew, was map[*capability.Capability]*capability.Capability, wasList, wasSrc []*capability.Capability) (list []*capability.Capability, fin map[*capability.Capability]*capability.Capability, src []*capability.Capability) {
	m := s.caps[agent]
	orig := map[*capability.Capability]*capability.Capability{}
	var todo []*capability.Capability
	copyOf := func(c *capability.Capability) {
		d := c.CloneSharingUses()
		orig[d], fin[c] = c, d
		todo = append(todo, d)
	}
	if was == nil {
		fin = make(map[*capability.Capability]*capability.Capability, len(m))
		for _, c := range m {
			copyOf(c)
		}
	} else {
		// The last view's copies, brought up to date in place: only the
		// next view reads them (viewParts), and a busy agent's set is
		// mostly what it was. Every capability of the scan is in the last
		// view (wasSrc) or changed since (changedOf): one is made by
		// asking for it, which changes it, and none is ever dropped.
		fin = was
		for _, c := range s.changedOf[agent] {
			copyOf(c)
		}
		for _, c := range wasSrc {
			if c.Kind == capability.Place && c.Origin == capability.Acquired && !s.changed[c] {
				copyOf(c)
			}
		}
	}
	copies := func(k capKey) *capability.Capability { return fin[m[k]] }
	s.finishAgent(copies, todo, by, func(c *capability.Capability) sourceBytes { return s.bytes[orig[c]] })
	// the copies taken from the last view, in its order
	type copyFrom struct{ d, c *capability.Capability }
	taken := make([]copyFrom, 0, len(m)-len(todo))
	for i, c := range wasSrc {
		if d := wasList[i]; fin[c] == d {
			taken = append(taken, copyFrom{d, c})
		}
	}
	slices.SortFunc(todo, capability.Compare)
	list, src = make([]*capability.Capability, 0, len(m)), make([]*capability.Capability, 0, len(m))
	for len(taken) > 0 || len(todo) > 0 {
		if len(todo) == 0 || len(taken) > 0 && capability.Compare(taken[0].d, todo[0]) <= 0 {
			list, src = append(list, taken[0].d), append(src, taken[0].c)
			taken = taken[1:]
		} else {
			list, src = append(list, todo[0]), append(src, orig[todo[0]])
			todo = todo[1:]
		}
	}
	return list, fin, src
}

// touch says c changed: the next view copies it, and its agent's set.
func (s *capScan) touch(c *capability.Capability) {
	if !s.changed[c] {
		s.changedOf[c.Agent] = append(s.changedOf[c.Agent], c)
	}
	s.touched[c.Agent], s.changed[c] = true, true
	if !s.inThinning[c] {
		s.inThinning[c] = true
		s.thinning = append(s.thinning, c)
	}
}
