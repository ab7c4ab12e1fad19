package fleet

import (
	"slices"
	"sync"

	"github.com/cordon-ir/cordon/evidence"
)

// Shared lets the readers of one process that read the same stream
// through consumers of their own (a worker's partition watchers) decode
// each message once: the first reader to get a message keeps what it
// decoded, the others take it, and the message is forgotten once every
// reader took it, or when more than Max messages are kept (the oldest
// first: a reader far behind the others decodes for itself). Only a
// message that read is kept; one that did not is rejected by each reader,
// as without it.
type Shared struct {
	mu      sync.Mutex
	readers int
	max     int
	kept    map[sharedKey]*sharedMsg
	order   []sharedKey // in the order kept, for forgetting the oldest
	hits    int64
}

type sharedKey struct {
	stream string
	seq    uint64
}

type sharedMsg struct {
	events []evidence.Event
	raw    bool
	left   int // readers yet to take it
}

// DefaultSharedMax bounds the messages a Shared keeps.
const DefaultSharedMax = 16384

// NewShared makes a Shared for readers readers, keeping at most max
// messages (0: DefaultSharedMax).
func NewShared(readers, max int) *Shared {
	if max <= 0 {
		max = DefaultSharedMax
	}
	return &Shared{readers: readers, max: max, kept: map[sharedKey]*sharedMsg{}}
}

// SetReaders says how many readers share it from now on.
func (s *Shared) SetReaders(n int) {
	s.mu.Lock()
	s.readers = n
	s.mu.Unlock()
}

// Hits counts the messages a reader took decoded from another.
func (s *Shared) Hits() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits
}

// take returns what another reader decoded of the message at seq.
func (s *Shared) take(stream string, seq uint64) (events []evidence.Event, raw, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := sharedKey{stream, seq}
	m, ok := s.kept[k]
	if !ok {
		return nil, false, false
	}
	s.hits++
	if m.left--; m.left <= 0 {
		delete(s.kept, k)
	}
	return m.events, m.raw, true
}

// keep offers what a reader decoded of the message at seq to the others.
// The events are shared: their slices are clipped, so that a reader
// appending to one (attribution's tags) copies it first.
func (s *Shared) keep(stream string, seq uint64, events []evidence.Event, raw bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.readers <= 1 {
		return
	}
	for i := range events {
		ev := &events[i]
		ev.Tags, ev.Credential, ev.Cut = slices.Clip(ev.Tags), slices.Clip(ev.Credential), slices.Clip(ev.Cut)
		ev.ToolsAllowed, ev.EgressAllowlist = slices.Clip(ev.ToolsAllowed), slices.Clip(ev.EgressAllowlist)
	}
	k := sharedKey{stream, seq}
	s.kept[k] = &sharedMsg{events: events, raw: raw, left: s.readers - 1}
	s.order = append(s.order, k)
	for len(s.kept) > s.max || len(s.order) > 2*s.max {
		old := s.order[0]
		s.order = s.order[1:]
		delete(s.kept, old)
	}
	if len(s.order) > 2*len(s.kept)+1024 {
		s.order = slices.DeleteFunc(s.order, func(k sharedKey) bool { _, ok := s.kept[k]; return !ok })
	}
}
