package evidence

import (
	"fmt"
	"sort"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// snapshot opens a scorch snapshot of the index, to read stored fields by
// document number; ok is false when the index is not scorch (the caller
// takes bleve's general path). Close the snapshot after use.
func (s *bleveStore) snapshot() (snap *scorch.IndexSnapshot, ok bool, err error) {
	adv, err := s.index().Advanced()
	if err != nil {
		return nil, false, nil
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, false, fmt.Errorf("open reader: %w", err)
	}
	snap, ok = r.(*scorch.IndexSnapshot)
	switch {
	case !ok:
		r.Close()
	case snap == nil: // the index was closed (see seal): the general path says so
		ok = false
	}
	return snap, ok, nil
}

// docTable finds a snapshot's documents by number: a snapshot numbers
// them segment after segment, deleted ones included.
type docTable struct {
	segs    []*scorch.SegmentSnapshot
	offsets []uint64
}

func newDocTable(snap *scorch.IndexSnapshot) docTable {
	t := docTable{segs: snap.Segments()}
	t.offsets = make([]uint64, len(t.segs))
	var next uint64
	for i, seg := range t.segs {
		t.offsets[i] = next
		next += seg.Segment().Count()
	}
	return t
}

// visit calls fn with each stored field of document num; val is valid
// only during the call. found is false when no segment holds num.
func (t docTable) visit(num uint64, fn func(name string, val []byte)) (found bool, err error) {
	i := sort.Search(len(t.offsets), func(i int) bool { return t.offsets[i] > num }) - 1
	if i < 0 {
		return false, nil
	}
	err = t.segs[i].VisitDocument(num-t.offsets[i], func(name string, _ byte, val []byte, _ []uint64) bool {
		fn(name, val)
		return true
	})
	if err != nil {
		return true, fmt.Errorf("read event: %w", err)
	}
	return true, nil
}
