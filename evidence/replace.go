package evidence

import (
	"context"
	"fmt"
)

// Replace rewrites events already in the store (same ids, new field values,
// e.g. an agent set by attribution) and adjusts the whole-incident counts by
// the difference. Events not in the store are skipped; it returns how many
// were replaced.
func (s *bleveStore) Replace(ctx context.Context, events []Event) (int, error) {
	if err := s.writable(); err != nil {
		return 0, err
	}
	if len(events) == 0 {
		return 0, nil
	}
	ids := make([]string, len(events))
	for i, ev := range events {
		ids[i] = ev.ID
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	olds, err := s.sources(ids)
	if err != nil {
		return 0, fmt.Errorf("read events to replace: %w", err)
	}
	// The counts are replaced whole: no batch may be on its way meanwhile.
	if err := s.builders.drain(); err != nil {
		return 0, err
	}
	s.builders.foldMu.Lock()
	defer s.builders.foldMu.Unlock()
	b := s.index().NewBatch()
	s.mu.RLock()
	next := s.counts.clone()
	s.mu.RUnlock()
	n := 0
	for i := range events {
		st, ok := olds[events[i].ID]
		if !ok {
			continue
		}
		old, err := st.event(events[i].ID)
		if err != nil {
			return 0, err
		}
		doc, err := s.build.build(&events[i])
		if err != nil {
			return 0, fmt.Errorf("event %s: %w", events[i].ID, err)
		}
		if err := b.IndexAdvanced(doc); err != nil {
			return 0, fmt.Errorf("event %s: %w", events[i].ID, err)
		}
		next.remove(&old)
		next.add(&events[i])
		n++
	}
	if n == 0 {
		return 0, nil
	}
	newGeneration(b)
	if err := s.commit(b, &next, nil); err != nil {
		return 0, fmt.Errorf("replace batch: %w", err)
	}
	s.mu.Lock()
	s.counts = next
	s.tl, s.matchCounts = nil, nil
	s.mu.Unlock()
	s.builders.base = next.clone()
	return n, nil
}
