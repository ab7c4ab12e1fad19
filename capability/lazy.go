package capability

import "sync"

// Loader reads kept capability sets back: one agent's, or every agent's.
type Loader struct {
	Agent func(agent string) []*Capability
	All   func() map[string][]*Capability
}

// lazySet is what a set read back holds until it is asked: the holdings,
// which answer Agents and Holding, and the sets loaded so far.
type lazySet struct {
	load     Loader
	holdings map[string]Holding
	mu       sync.Mutex
	agents   map[string][]*Capability // loaded one agent at a time
	all      bool                     // every set loaded, in Set.byAgent
}

// NewLazySet is a set read back from where it was kept: holdings (one
// per agent of the set, as Holding gave them when it was kept) answer
// Agents and Holding at once; an agent's set is loaded the first time it
// is asked for, and every set when all are. A ranking of agents then
// decodes no set, and the Assessment of one agent decodes its set only.
func NewLazySet(holdings map[string]Holding, load Loader) *Set {
	return &Set{lazy: &lazySet{load: load, holdings: holdings, agents: map[string][]*Capability{}}}
}

// sets are every agent's set, loaded now if the set is lazy.
func (s *Set) sets() map[string][]*Capability {
	if l := s.lazy; l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		if !l.all {
			caps := l.load.All()
			for _, list := range caps {
				Sort(list)
			}
			s.byAgent, l.all, l.agents = caps, true, nil
		}
	}
	return s.byAgent
}

// agentSet is agent's set, loaded now if the set is lazy.
func (s *Set) agentSet(agent string) []*Capability {
	l := s.lazy
	if l == nil {
		return s.byAgent[agent]
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.all {
		return s.byAgent[agent]
	}
	if list, ok := l.agents[agent]; ok {
		return list
	}
	if _, ok := l.holdings[agent]; !ok {
		return nil // not an agent of the set
	}
	list := l.load.Agent(agent)
	Sort(list)
	l.agents[agent] = list
	return list
}
