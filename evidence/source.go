package evidence

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
	fastjson "github.com/segmentio/encoding/json"
)

// events loads the stored events of hits, in hit order.
func (s *bleveStore) events(hits search.DocumentMatchCollection) ([]Event, error) {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	srcs, err := s.sources(ids)
	if err != nil {
		return nil, err
	}
	evs := make([]Event, 0, len(ids))
	for _, id := range ids {
		st, ok := srcs[id]
		if !ok {
			return nil, fmt.Errorf("event %s: stored source missing", id)
		}
		ev, err := st.event(id)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// stored is what the index keeps of an event: its fields as JSON, and the
// raw record beside them (kept apart so that reading an event never has
// to scan and unquote a record of kilobytes inside the JSON).
type stored struct {
	src, raw []byte
}

// event decodes a stored event.
func (st stored) event(id string) (Event, error) {
	var ev Event
	if err := fastjson.Unmarshal(st.src, &ev); err != nil {
		return Event{}, fmt.Errorf("event %s: stored source unreadable: %w", id, err)
	}
	if st.raw != nil {
		ev.Raw = string(st.raw)
	}
	return ev, nil
}

// sources returns what is stored of each id found. Bleve's own way,
// one Document(id) per hit, looks the id up in every segment, about 40 µs
// a hit on a million events; here one pass resolves all ids and each
// document is read from its segment directly. Every source is filed under
// the _id stored beside it, so a surprise in how the snapshot numbers
// documents can only leave an id to the slow path, never mix events up.
func (s *bleveStore) sources(ids []string) (map[string]stored, error) {
	out := make(map[string]stored, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	if err := s.readSources(ids, out); err != nil {
		return nil, err
	}
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		doc, err := s.index().Document(id)
		if err != nil {
			return nil, fmt.Errorf("event %s: %w", id, err)
		}
		if doc == nil {
			continue
		}
		var st stored
		doc.VisitFields(func(f index.Field) {
			switch f.Name() {
			case sourceField:
				st.src = f.Value()
			case rawField:
				st.raw = f.Value()
			}
		})
		if st.src != nil {
			out[id] = st
		}
	}
	return out, nil
}

// readSources is the fast path of sources, on a scorch snapshot.
func (s *bleveStore) readSources(ids []string, out map[string]stored) error {
	snap, ok, err := s.snapshot()
	if err != nil || !ok {
		return err
	}
	defer snap.Close()
	t := newDocTable(snap)
	dr, err := snap.DocIDReaderOnly(ids)
	if err != nil {
		return fmt.Errorf("resolve ids: %w", err)
	}
	defer dr.Close()
	for {
		iid, err := dr.Next()
		if err != nil {
			return fmt.Errorf("resolve ids: %w", err)
		}
		if iid == nil {
			return nil
		}
		var id string
		var st stored
		_, err = t.visit(iid.Value(), func(name string, val []byte) {
			switch name {
			case "_id":
				id = string(val)
			case sourceField:
				st.src = append([]byte(nil), val...)
			case rawField:
				st.raw = append([]byte(nil), val...)
			}
		})
		if err != nil {
			return err
		}
		if id != "" && st.src != nil {
			out[id] = st
		}
	}
}
