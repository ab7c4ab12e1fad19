package detect

import (
	"slices"

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
}

// viewParts is what the last view kept of each agent, to be shared by
// the next where the agent did not change.
type viewParts struct {
	caps     map[string][]*capability.Capability // finished, sorted
	holdings map[string]capability.Holding
	skews    []Skew
}

// View is Result made from the last view: only the capability sets of
// the agents whose capabilities changed since are copied and finished,
// every other agent's is the last view's. It equals what Result gives
// for the same events. Everything every set's finishing reads (an end
// recorded, a clock skew, a session learnt, a credential read still
// waiting for its result) changing makes every set copied again.
func (p *Pass) View() View {
	findings := p.Findings()
	set, holdings, skews := p.viewSets()
	ranks := RankAgents(RankInput{Findings: findings, Holdings: holdings})
	SortRanked(findings, ranks)
	return View{Result: Result{Findings: findings, Capabilities: set, Coverage: capability.FromState(p.caps.cov.State()), Skews: skews},
		Ranks: ranks, Holdings: holdings}
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
		holdings: make(map[string]capability.Holding, len(s.caps)), skews: skews}
	var dirty []string
	switch {
	case len(s.reads) > 0:
		// a read waiting for its result is taken on a copy of the whole
		// scan (done) and may reach any agent: as Result does it
		set := s.clone().done(skews)
		for _, a := range set.Agents() {
			next.caps[a] = slices.Collect(set.All(a))
			dirty = append(dirty, a)
		}
		s.touchedAll = true // the next view, too, copies every set
	case prev == nil || s.touchedAll || !slices.Equal(prev.skews, skews):
		for a := range s.caps {
			dirty = append(dirty, a)
		}
		s.touchedAll = false
	default:
		for a, list := range prev.caps {
			if !s.touched[a] {
				next.caps[a], next.holdings[a] = list, prev.holdings[a]
			}
		}
		for a := range s.touched {
			if _, ok := s.caps[a]; ok {
				dirty = append(dirty, a)
			}
		}
	}
	clear(s.touched)
	by := skewsBySource(skews)
	for _, a := range dirty {
		if _, ok := next.caps[a]; !ok {
			next.caps[a] = s.finishedCopy(a, by)
		}
	}
	set := capability.NewSortedSet(next.caps)
	for _, a := range dirty {
		next.holdings[a] = set.Holding(a)
	}
	p.view = next
	return set, next.holdings, skews
}

// finishedCopy is agent's capability set as done gives it, finished on
// copies of its capabilities: the scan is not changed. A capability whose
// uses finishing would not move (in time order, no skew applied to them)
// shares them with the scan, and only what Compact keeps of them is
// copied: an agent's tool calls, used at every event, are otherwise most
// of what a view copies.
func (s *capScan) finishedCopy(agent string, by map[string]Skew) []*capability.Capability {
	m := s.caps[agent]
	n := make(map[string]*capability.Capability, len(m))
	orig := make(map[*capability.Capability]*capability.Capability, len(m))
	shared := map[*capability.Capability]bool{}
	skewed := false
	for _, k := range by {
		skewed = skewed || k.Applied
	}
	for k, c := range m {
		var d *capability.Capability
		if usesInOrder(c.Uses) && (!skewed || !slices.ContainsFunc(c.Uses, func(u capability.Use) bool { return by[u.Source].Applied })) {
			d = c.CloneSharingUses()
			shared[d] = true
		} else {
			d = c.Clone()
		}
		n[k], orig[d] = d, c
	}
	list := s.finishAgent(n, by, func(c *capability.Capability) sourceBytes { return s.bytes[orig[c]] }, shared)
	capability.Sort(list)
	return list
}

// touch says agent's capabilities changed: the next view copies its set.
func (s *capScan) touch(agent string) { s.touched[agent] = true }
