package capability

import (
	"cmp"
	"iter"
	"maps"
	"slices"
	"strings"
)

// Set is the capability sets of an incident's agents.
type Set struct {
	byAgent map[string][]*Capability
	// lazy, for a set read back from where it was kept (NewLazySet)
	lazy *lazySet
}

// NewSet makes a set of the given capabilities, each agent's sorted.
func NewSet(caps map[string][]*Capability) *Set {
	s := &Set{byAgent: map[string][]*Capability{}}
	for a, list := range caps {
		Sort(list)
		s.byAgent[a] = list
	}
	return s
}

// NewSortedSet makes a set of lists already in Sort's order, without
// sorting or copying them: the lists may be shared with other sets (a
// watcher's views share every agent's that did not change), so nothing
// may change them after.
func NewSortedSet(caps map[string][]*Capability) *Set {
	return &Set{byAgent: caps}
}

// For returns an agent's capability set, copied: kind, then granted before
// acquired, then the most bytes or the value.
func (s *Set) For(agent string) []Capability {
	if s == nil {
		return nil
	}
	list := s.agentSet(agent)
	out := make([]Capability, len(list))
	for i, c := range list {
		out[i] = *c
	}
	return out
}

// All yields an agent's capabilities in For's order, not copied: for
// reading only. A judgement over a million events' sets reads tens of
// thousands of capabilities, and copying each cost it a third of its time.
func (s *Set) All(agent string) iter.Seq[*Capability] {
	return func(yield func(*Capability) bool) {
		if s == nil {
			return
		}
		for _, c := range s.agentSet(agent) {
			if !yield(c) {
				return
			}
		}
	}
}

// Agents lists the agents with a capability set, sorted.
func (s *Set) Agents() []string {
	if s == nil {
		return nil
	}
	if s.lazy != nil {
		return slices.Sorted(maps.Keys(s.lazy.holdings))
	}
	out := make([]string, 0, len(s.byAgent))
	for a := range s.byAgent {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// kindOrder is the order capability kinds are listed in.
func kindOrder(k Kind) int {
	for i, x := range Kinds() {
		if x == k {
			return i
		}
	}
	return len(Kinds())
}

// Sort orders a capability list by Compare.
func Sort(list []*Capability) { slices.SortStableFunc(list, Compare) }

// Compare is the order of a capability list: kind, granted before
// acquired, data-out by bytes, then value. Within an agent's set no two
// compare equal (one capability a kind and value).
func Compare(a, b *Capability) int {
	if a.Kind != b.Kind {
		return cmp.Compare(kindOrder(a.Kind), kindOrder(b.Kind))
	}
	if a.Origin != b.Origin {
		switch {
		case a.Origin == Granted:
			return -1
		case b.Origin == Granted:
			return 1
		}
		return 0
	}
	if a.Kind == DataOut && a.BytesOut != b.BytesOut {
		return cmp.Compare(b.BytesOut, a.BytesOut)
	}
	return strings.Compare(a.Value, b.Value)
}
