package sigma

import (
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// An index holds the anchors of a rule set's filters (anchor.go): for
// each field they read, the filters each key may match. In a pass, the
// first anchored filter asked about an event looks the event's value up
// once for all the filters anchored on that field; the others are then
// turned away by a number, and only those whose key the event has are
// tried whole.
type index struct {
	fields []*indexField
	field  []int // each slot's field
	n      int   // anchored filters
}

type indexField struct {
	read func(*evidence.Event) string
	kind anchorKind
	keys map[string][]int // whole and segment: key -> the slots it may match
	scan *scanner         // within: the keys held by a value
	all  []int            // every slot anchored on the field
}

// indexFilters gives the anchored ones of fs their slot in one index.
func indexFilters(fs []*Filter) {
	ix := &index{}
	type fieldKey struct {
		field string
		kind  anchorKind
	}
	byField := map[fieldKey]*indexField{}
	scanBytes := map[fieldKey]int{}
	for _, f := range fs {
		a, ok := anchorOf(f.p)
		if !ok || f.ix != nil {
			continue
		}
		read := oneReader(a.field)
		if read == nil {
			continue
		}
		k := fieldKey{a.field, a.kind}
		if a.kind == within {
			n := scanBytes[k]
			for _, key := range a.keys {
				n += len(key)
			}
			if n > maxScanBytes {
				continue
			}
			scanBytes[k] = n
		}
		fld := byField[k]
		if fld == nil {
			fld = &indexField{read: read, kind: a.kind, keys: map[string][]int{}}
			byField[k] = fld
			ix.fields = append(ix.fields, fld)
		}
		f.ix, f.slot = ix, ix.n
		ix.n++
		ix.field = append(ix.field, slices.Index(ix.fields, fld))
		fld.all = append(fld.all, f.slot)
		for _, key := range a.keys {
			fld.keys[key] = append(fld.keys[key], f.slot)
		}
	}
	for _, fld := range ix.fields {
		if fld.kind == within {
			// the keys held are found by a scan, not looked up
			fld.scan, fld.keys = newScanner(fld.keys), nil
		}
	}
}

// passIndex is an index's state in one pass: for each field, the event
// whose value it last looked up; for each slot, the last event that may
// match its filter. A field is looked up only when a filter anchored on
// it is asked: an event of one log source asks no other's fields.
type passIndex struct {
	ix      *index
	fieldAt []int64
	mayAt   []int64
	buf     []byte
}

func (s *passIndex) may(slot int, ev *evidence.Event, st *detect.FilterState) bool {
	if i := s.ix.field[slot]; s.fieldAt[i] != st.Event {
		s.fieldAt[i] = st.Event
		s.look(s.ix.fields[i], ev, st.Event)
	}
	return s.mayAt[slot] == st.Event
}

// look marks the slots of f that the event's value may match. A value
// that is not ASCII may match any of them: lowercasing is not case
// folding there (the Kelvin sign folds to k), so each is tried whole.
func (s *passIndex) look(f *indexField, ev *evidence.Event, at int64) {
	mark := func(slots []int) {
		for _, j := range slots {
			s.mayAt[j] = at
		}
	}
	v := f.read(ev)
	if !ascii(v) {
		mark(f.all)
		return
	}
	if f.kind == within {
		f.scan.each(v, mark)
		return
	}
	if f.kind == segment {
		i := strings.LastIndexByte(v, '/')
		if i < 0 {
			return
		}
		v = v[i+1:]
	}
	s.buf = appendLower(s.buf[:0], v)
	mark(f.keys[string(s.buf)])
}

func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// ForPass is the filter's matcher in one pass (detect.PassFilter): an
// anchored filter first asks the pass's index whether the event may
// match it.
func (f *Filter) ForPass(st *detect.FilterState) func(*evidence.Event) bool {
	if f.ix == nil {
		return f.Match
	}
	s, _ := st.Shared[f.ix].(*passIndex)
	if s == nil {
		// events are numbered from 1: 0 is no event's
		s = &passIndex{ix: f.ix, fieldAt: make([]int64, len(f.ix.fields)), mayAt: make([]int64, f.ix.n)}
		st.Shared[f.ix] = s
	}
	m, slot := f.m, f.slot
	return func(ev *evidence.Event) bool {
		return s.may(slot, ev, st) && m.match(ev)
	}
}
