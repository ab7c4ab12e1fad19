package attribution

import (
	"maps"
	"slices"
)

// Clone is a copy of the identity map that shares nothing with it: one
// goroutine may go on observing the original while others attribute with
// the copy (an enforcement point asking who a request belongs to while the
// watcher's pass reads on). It costs in proportion to the bindings.
func (id *Identity) Clone() *Identity {
	out := &Identity{
		byKey:        make(map[string][]Binding, len(id.byKey)),
		containers:   slices.Clone(id.containers),
		ends:         maps.Clone(id.ends),
		credentials:  maps.Clone(id.credentials),
		active:       maps.Clone(id.active),
		sessionKeys:  make(map[string][]string, len(id.sessionKeys)),
		conflictSeen: maps.Clone(id.conflictSeen),
		owners:       maps.Clone(id.owners),
	}
	for k, list := range id.byKey {
		out.byKey[k] = slices.Clone(list)
	}
	for k, keys := range id.sessionKeys {
		out.sessionKeys[k] = slices.Clone(keys)
	}
	if id.borrowed != nil {
		out.borrowed = make(map[string][]borrowing, len(id.borrowed))
		for k, list := range id.borrowed {
			out.borrowed[k] = slices.Clone(list)
		}
	}
	if r := id.resp; r != nil {
		c := &responders{names: maps.Clone(r.names), execs: make(map[string][]podExec, len(r.execs)),
			pids: make(map[string]map[int]string, len(r.pids)), seen: make(map[string]map[int]bool, len(r.seen))}
		for k, v := range r.execs {
			c.execs[k] = slices.Clone(v)
		}
		for k, v := range r.pids {
			c.pids[k] = maps.Clone(v)
		}
		for k, v := range r.seen {
			c.seen[k] = maps.Clone(v)
		}
		out.resp = c
	}
	return out
}
