package evidence

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Prepared is a batch of events made into analysed documents, ready for
// IndexPrepared.
type Prepared struct {
	events []Event
	docs   []*document.Document
}

// Len is the number of events in the batch.
func (p *Prepared) Len() int { return len(p.events) }

// Prepare builds and analyses the documents of events: the CPU-heavy half
// of Index, safe to run on another goroutine while an earlier batch is
// being indexed.
func (s *bleveStore) Prepare(events []Event) (*Prepared, error) {
	p := &Prepared{events: events, docs: make([]*document.Document, len(events))}
	for i := range events {
		doc, err := s.build.build(&events[i])
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", events[i].ID, err)
		}
		p.docs[i] = doc
	}
	return p, nil
}

// Index adds the events that are not yet in the store.
func (s *bleveStore) Index(ctx context.Context, events []Event, state map[string][]byte) (int, error) {
	p, err := s.Prepare(events)
	if err != nil {
		return 0, err
	}
	return s.IndexPrepared(ctx, p, state, nil)
}

// IndexPrepared adds the prepared events that are not yet in the store,
// with state, in one batch, and returns how many were new. Checking which
// ids exist costs one query per batch and is what keeps re-ingest of a
// copy, a rotated file or a crashed run from counting an event twice.
// stored, if not nil, is told the same number once the batch is on disk,
// on another goroutine (see Sync).
func (s *bleveStore) IndexPrepared(ctx context.Context, p *Prepared, state map[string][]byte, stored func(fresh int)) (int, error) {
	if err := s.writable(); err != nil {
		return 0, err
	}
	fresh, err := s.missing(ctx, p.events)
	if err != nil {
		return 0, err
	}
	b := s.index().NewBatch()
	s.mu.RLock()
	next := s.counts.clone()
	s.mu.RUnlock()
	for _, i := range fresh {
		if err := b.IndexAdvanced(p.docs[i]); err != nil {
			return 0, fmt.Errorf("event %s: %w", p.events[i].ID, err)
		}
		next.add(&p.events[i])
	}
	for k, v := range state {
		b.SetInternal([]byte("state:"+k), v)
	}
	if err := s.commit(b, next, len(fresh) > 0, len(fresh), stored); err != nil {
		return 0, fmt.Errorf("index batch: %w", err)
	}
	return len(fresh), nil
}

// missing returns the positions of the events whose ids are not in the
// index, first occurrence only.
func (s *bleveStore) missing(ctx context.Context, events []Event) ([]int, error) {
	seen := make(map[string]bool, len(events))
	ids := make([]string, 0, len(events))
	for _, ev := range events {
		if _, ok := seen[ev.ID]; !ok {
			seen[ev.ID] = false
			ids = append(ids, ev.ID)
		}
	}
	if len(ids) > 0 && s.counts.Total > 0 {
		req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
		req.Score = bleve.ScoreNone
		res, err := s.index().SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("check existing ids: %w", err)
		}
		for _, h := range res.Hits {
			seen[h.ID] = true
		}
	}
	out := make([]int, 0, len(events))
	for i, ev := range events {
		if !seen[ev.ID] {
			out = append(out, i)
			seen[ev.ID] = true
		}
	}
	return out, nil
}
