package detect

import (
	"maps"

	"github.com/cordon-ir/cordon/capability"
)

// readers are the agents whose tool calls read a credential and wait for
// their result: what finishing takes as read (readPending) changes their
// sets only.
func (s *capScan) readers() map[string]bool {
	if len(s.reads) == 0 {
		return nil
	}
	out := map[string]bool{}
	for _, ev := range s.reads {
		out[ev.Agent] = true
	}
	return out
}

// withPendingReads is the scan as finishing sees it for agents: the reads
// still waiting for their results taken as done takes them, on copies of
// those agents' capabilities; the scan is not changed. A view finishes
// those agents' sets on it rather than copying the whole scan.
func (s *capScan) withPendingReads(agents map[string]bool) *capScan {
	o := *s
	o.caps = maps.Clone(s.caps)
	o.bytes = map[*capability.Capability]sourceBytes{}
	for a := range agents {
		m := make(map[capKey]*capability.Capability, len(s.caps[a]))
		for k, c := range s.caps[a] {
			d := c.CloneSharingUses() // finished at once: settled into its own
			m[k] = d
			if b, ok := s.bytes[c]; ok {
				o.bytes[d] = b
			}
		}
		o.caps[a] = m
	}
	o.borrow = clipped(s.borrow)
	o.touched, o.changed, o.changedOf, o.endKeys = map[string]bool{}, map[*capability.Capability]bool{}, map[string][]*capability.Capability{}, nil
	o.thinning, o.inThinning = nil, map[*capability.Capability]bool{}
	o.readPending()
	return &o
}
