package sigma

import (
	"slices"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// An index holds the anchors of a rule set's filters (anchor.go): for
// each field they read, the filters each key of it may match. In a pass,
// the first anchored filter asked about an event looks the event's keys
// up once for all of them; the others are then turned away by a bit, and
// only those whose key the event has are tried whole.
type index struct {
	fields []*indexField
	field  []int // each slot's field
	n      int   // anchored filters
}

type indexField struct {
	read func(*evidence.Event) string
	base bool
	keys map[string][]int // key -> the slots of the filters it may match
	all  []int            // every slot anchored on the field
}

// indexFilters gives the anchored ones of fs their slot in one index.
func indexFilters(fs []*Filter) {
	ix := &index{}
	type fieldKey struct {
		field string
		base  bool
	}
	byField := map[fieldKey]*indexField{}
	for _, f := range fs {
		a, ok := anchorOf(f.p)
		if !ok || f.ix != nil {
			continue
		}
		read := oneReader(a.field)
		if read == nil {
			continue
		}
		k := fieldKey{a.field, a.base}
		fld := byField[k]
		if fld == nil {
			fld = &indexField{read: read, base: a.base, keys: map[string][]int{}}
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
}

// key is the event's key of a field's value: the value or, for an
// endswith anchor, its last path segment, lowercased; ok false when no
// anchor on the field can match it (no '/' under endswith), and all true
// when the key is not ASCII, where lowercasing is not case folding
// (the Kelvin sign folds to k): every filter on the field is then tried.
func (f *indexField) key(v string, buf []byte) (key []byte, ok, all bool) {
	if f.base {
		i := lastSlash(v)
		if i < 0 {
			return nil, false, false
		}
		v = v[i+1:]
	}
	buf = buf[:0]
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c >= 0x80 {
			return nil, true, true
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf, true, false
}

func lastSlash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return i
		}
	}
	return -1
}

// passIndex is an index's state in one pass: for each field, the event
// whose key it last looked up; for each slot, the last event that may
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
		f := s.ix.fields[i]
		key, ok, all := f.key(f.read(ev), s.buf)
		s.buf = key[:0]
		slots := f.all
		if !all {
			slots = nil
			if ok {
				slots = f.keys[string(key)]
			}
		}
		for _, j := range slots {
			s.mayAt[j] = st.Event
		}
	}
	return s.mayAt[slot] == st.Event
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
