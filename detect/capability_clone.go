package detect

import (
	"maps"
	"slices"

	"github.com/cordon-ir/cordon/capability"
)

// clone is a copy of the scan that its finishing (done) can change
// without changing s: a following pass is finished for each answer it
// gives and goes on. Capabilities are copied once each, and every map
// that points at one points at its copy.
func (s *capScan) clone() *capScan {
	d := *s
	copies := map[*capability.Capability]*capability.Capability{}
	cp := func(c *capability.Capability) *capability.Capability {
		if c == nil {
			return nil
		}
		n, ok := copies[c]
		if !ok {
			n = c.CloneSharingUses() // finished at once: settled into its own
			copies[c] = n
		}
		return n
	}
	d.caps = make(map[string]map[capKey]*capability.Capability, len(s.caps))
	for agent, m := range s.caps {
		n := make(map[capKey]*capability.Capability, len(m))
		for k, c := range m {
			n[k] = cp(c)
		}
		d.caps[agent] = n
	}
	d.jobs = remap(s.jobs, cp)
	d.pids = remap(s.pids, cp)
	d.procs = remap(s.procs, cp)
	d.calls = make(map[string]*callUse, len(s.calls))
	for k, u := range s.calls {
		d.calls[k] = &callUse{c: cp(u.c), id: u.id}
	}
	d.bytes = make(map[*capability.Capability]sourceBytes, len(s.bytes))
	for c, by := range s.bytes {
		d.bytes[cp(c)] = slices.Clone(by)
	}
	d.workloads = remapList(s.workloads, cp)
	d.minted = remapList(s.minted, cp)
	d.kinds, d.issued, d.reads, d.keyLogged = maps.Clone(s.kinds), maps.Clone(s.issued), maps.Clone(s.reads), maps.Clone(s.keyLogged)
	d.jobTools = maps.Clone(s.jobTools)
	d.borrow, d.keyHolders = clipped(s.borrow), clipped(s.keyHolders)
	d.ends, d.auth = clipped(s.ends), clipped(s.auth)
	d.cov = s.cov.Clone()
	// the copy's finishing is no view's change
	d.touched, d.changed, d.changedOf, d.endKeys = map[string]bool{}, map[*capability.Capability]bool{}, map[string][]*capability.Capability{}, nil
	d.thinning, d.inThinning = nil, map[*capability.Capability]bool{}
	return &d
}

func remap[K comparable](m map[K]*capability.Capability, cp func(*capability.Capability) *capability.Capability) map[K]*capability.Capability {
	out := make(map[K]*capability.Capability, len(m))
	for k, c := range m {
		out[k] = cp(c)
	}
	return out
}

func remapList(m map[string][]*capability.Capability, cp func(*capability.Capability) *capability.Capability) map[string][]*capability.Capability {
	out := make(map[string][]*capability.Capability, len(m))
	for k, list := range m {
		n := make([]*capability.Capability, len(list))
		for i, c := range list {
			n[i] = cp(c)
		}
		out[k] = n
	}
	return out
}

// clipped copies a map of slices whose slices an append on the copy must
// not write through to the original's spare room.
func clipped[K comparable, V any](m map[K][]V) map[K][]V {
	out := make(map[K][]V, len(m))
	for k, v := range m {
		out[k] = slices.Clip(v)
	}
	return out
}
