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
	events  []Event
	docs    []*document.Document
	payload any // another backend's prepared batch (NewPrepared)
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

// Index adds the events that are not yet in the store, and returns once
// they are searchable.
func (s *bleveStore) Index(ctx context.Context, events []Event, state map[string][]byte) (int, error) {
	p, err := s.Prepare(events)
	if err != nil {
		return 0, err
	}
	landed := make(chan struct{})
	n, err := s.IndexPrepared(ctx, p, state, func() { close(landed) }, nil)
	if err != nil {
		return 0, err
	}
	select {
	case <-landed:
		return n, nil
	case <-s.builders.failed:
		return 0, s.builders.failure()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

// missing returns the positions of the events whose ids are neither in
// the index nor in one of others (the batches being built), first
// occurrence only.
func (s *bleveStore) missing(ctx context.Context, events []Event, others []map[string]struct{}) ([]int, error) {
	seen := make(map[string]bool, len(events))
	ids := make([]string, 0, len(events))
	for _, ev := range events {
		if _, ok := seen[ev.ID]; ok {
			continue
		}
		building := false
		for _, o := range others {
			if _, building = o[ev.ID]; building {
				break
			}
		}
		seen[ev.ID] = building
		if !building {
			ids = append(ids, ev.ID)
		}
	}
	s.mu.RLock()
	any := s.counts.Total > 0
	s.mu.RUnlock()
	if len(ids) > 0 && any {
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
