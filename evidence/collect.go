package evidence

import (
	"context"
	"fmt"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	fastjson "github.com/segmentio/encoding/json"
)

// collectTimeOrder runs q on one index snapshot, keeps the first limit hits
// in time order (newest first when back) after the sort key after (""
// none), and reads their events from the same snapshot by document number.
// Going through bleve's SearchInContext would hand back only ids, and
// resolving each id again costs a term lookup per segment: a fifth of the
// time the detectors take to read a million events. ok is false when the
// index is not a scorch snapshot; the caller then takes the general path.
func (s *bleveStore) collectTimeOrder(ctx context.Context, q query.Query, after string, back bool, limit int) (evs []Event, more, ok bool, err error) {
	snap, isSnap, err := s.snapshot()
	if err != nil || !isSnap {
		return nil, false, false, err
	}
	defer snap.Close()
	searcher, err := q.Searcher(ctx, snap, s.im, search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, false, true, fmt.Errorf("timeline page: %w", err)
	}
	defer searcher.Close()
	order := search.SortOrder{&search.SortField{Field: sortField, Type: search.SortFieldAsString, Desc: back}}
	coll := collector.NewTopNCollector(limit+1, 0, order)
	if after != "" {
		coll = collector.NewTopNCollectorAfter(limit+1, order, []string{after})
	}
	if err := coll.Collect(ctx, searcher, snap); err != nil {
		return nil, false, true, fmt.Errorf("timeline page: %w", err)
	}
	hits := coll.Results()
	more = len(hits) > limit
	if more {
		hits = hits[:limit]
	}
	evs, err = readByNumber(snap, hits)
	return evs, more, true, err
}

// parallelRead is the page size from which readByNumber decodes on two
// goroutines: decoding is most of reading a page, and the detectors' scan
// leaves part of the second core idle.
const parallelRead = 512

// readByNumber reads the stored events of hits, in hit order, from the
// snapshot the hits came from.
func readByNumber(snap *scorch.IndexSnapshot, hits search.DocumentMatchCollection) ([]Event, error) {
	t := newDocTable(snap)
	evs := make([]Event, len(hits))
	if len(hits) < parallelRead {
		return evs, t.readRange(hits, evs)
	}
	half := len(hits) / 2
	errc := make(chan error, 1)
	go func() { errc <- t.readRange(hits[half:], evs[half:]) }()
	err := t.readRange(hits[:half], evs[:half])
	if err2 := <-errc; err == nil {
		err = err2
	}
	return evs, err
}

// readRange decodes the events of hits into evs (the same length).
func (t docTable) readRange(hits search.DocumentMatchCollection, evs []Event) error {
	for k, h := range hits {
		num := index.IndexInternalID(h.IndexInternalID).Value()
		var id string
		var found bool
		var derr error
		ev := &evs[k]
		inSeg, err := t.visit(num, func(name string, val []byte) {
			// val is only valid during the visit: decode (and copy) here
			switch name {
			case "_id":
				id = string(val)
			case sourceField:
				found, derr = true, fastjson.Unmarshal(val, ev)
			case rawField:
				ev.Raw = string(val)
			}
		})
		switch {
		case err != nil:
			return err
		case !inSeg:
			return fmt.Errorf("event %s: document %d is in no segment", h.ID, num)
		case !found:
			return fmt.Errorf("event %s: stored source missing", id)
		case derr != nil:
			return fmt.Errorf("event %s: stored source unreadable: %w", id, derr)
		}
	}
	return nil
}
