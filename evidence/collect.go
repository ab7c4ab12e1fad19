package evidence

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// collectTimeOrder runs q on one index snapshot, keeps the first limit hits
// in time order (newest first when back) after the sort key after (""
// none), and reads their events from the same snapshot by document number.
// Going through bleve's SearchInContext would hand back only ids, and
// resolving each id again costs a term lookup per segment: a fifth of the
// time the detectors take to read a million events. ok is false when the
// index is not a scorch snapshot; the caller then takes the general path.
func (s *bleveStore) collectTimeOrder(ctx context.Context, q query.Query, after string, back bool, limit int) (evs []Event, more, ok bool, err error) {
	adv, err := s.idx.Advanced()
	if err != nil {
		return nil, false, false, nil
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, false, false, fmt.Errorf("open reader: %w", err)
	}
	defer r.Close()
	snap, isSnap := r.(*scorch.IndexSnapshot)
	if !isSnap {
		return nil, false, false, nil
	}
	searcher, err := q.Searcher(ctx, r, s.im, search.SearcherOptions{Score: "none"})
	if err != nil {
		return nil, false, true, fmt.Errorf("timeline page: %w", err)
	}
	defer searcher.Close()
	order := search.SortOrder{&search.SortField{Field: sortField, Type: search.SortFieldAsString, Desc: back}}
	coll := collector.NewTopNCollector(limit+1, 0, order)
	if after != "" {
		coll = collector.NewTopNCollectorAfter(limit+1, order, []string{after})
	}
	if err := coll.Collect(ctx, searcher, r); err != nil {
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
	segs := snap.Segments()
	// A snapshot numbers documents segment after segment, deleted ones
	// included.
	offsets := make([]uint64, len(segs))
	var next uint64
	for i, seg := range segs {
		offsets[i] = next
		next += seg.Segment().Count()
	}
	evs := make([]Event, len(hits))
	if len(hits) < parallelRead {
		return evs, readRange(segs, offsets, hits, evs)
	}
	half := len(hits) / 2
	errc := make(chan error, 1)
	go func() { errc <- readRange(segs, offsets, hits[half:], evs[half:]) }()
	err := readRange(segs, offsets, hits[:half], evs[:half])
	if err2 := <-errc; err == nil {
		err = err2
	}
	return evs, err
}

// readRange decodes the events of hits into evs (the same length).
func readRange(segs []*scorch.SegmentSnapshot, offsets []uint64, hits search.DocumentMatchCollection, evs []Event) error {
	for k, h := range hits {
		num := index.IndexInternalID(h.IndexInternalID).Value()
		i := sort.Search(len(offsets), func(i int) bool { return offsets[i] > num }) - 1
		if i < 0 {
			return fmt.Errorf("event %s: document %d is in no segment", h.ID, num)
		}
		var id string
		var found bool
		var derr error
		ev := &evs[k]
		err := segs[i].VisitDocument(num-offsets[i], func(name string, _ byte, val []byte, _ []uint64) bool {
			// val is only valid during the visit: decode (and copy) here
			switch name {
			case "_id":
				id = string(val)
			case sourceField:
				found, derr = true, json.Unmarshal(val, ev)
			case rawField:
				ev.Raw = string(val)
			}
			return true
		})
		if err != nil {
			return fmt.Errorf("read event: %w", err)
		}
		if !found {
			return fmt.Errorf("event %s: stored source missing", id)
		}
		if derr != nil {
			return fmt.Errorf("event %s: stored source unreadable: %w", id, derr)
		}
	}
	return nil
}
