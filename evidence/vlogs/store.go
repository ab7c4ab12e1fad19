package vlogs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Options open a case on VictoriaLogs.
type Options struct {
	// Addr is victorialogs://host:port[,host:port].
	Addr string
	// Case names the case's stream: letters, digits, '.', '_' and '-'.
	Case string
	// Dir is where the checkpoints are kept, beside the case's journal.
	Dir string
	// ReadOnly refuses Index and Replace.
	ReadOnly bool
}

// ErrReadOnly: the store was opened for reading.
var ErrReadOnly = errors.New("victorialogs store opened read-only")

// Store is an evidence.Store whose events live in VictoriaLogs.
type Store struct {
	c        *client
	caseID   string
	readOnly bool
	state    *stateFile

	mu       sync.RWMutex
	counts   evidence.Counts
	replaced bool    // the case holds replacements: reads leave out what they superseded
	minutes  []int64 // the minutes of counts.Minutes in order; nil when they changed

	// the writing side (ingest.go), one write at a time under wmu
	session  string       // names this store's batches, with batches
	batches  atomic.Int64 // batches prepared
	perEvent atomic.Int64 // bytes of record per event in the last batch prepared
	wmu      sync.Mutex
	known    *idFilter       // the ids the case holds or was sent; nil before the first write
	sent     map[string]bool // the ids of the batches in flight
	inflight []*inflight     // batches sent, not yet counted
	settled  bool            // a batch was settled
	werr     error           // a failed write: nothing after it is written
	ownGen   string          // the generation value this store's last settled write made (keptcounts.go)
}

var _ evidence.Store = (*Store)(nil)

// ValidCase reports whether id can name a case.
func ValidCase(id string) error {
	if id == "" || len(id) > 128 {
		return fmt.Errorf("case id %q: want 1 to 128 characters", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return fmt.Errorf("case id %q: only letters, digits, '.', '_' and '-'", id)
		}
	}
	return nil
}

// Open connects to VictoriaLogs, reads the case's counts from it and its
// checkpoints from Dir.
func Open(ctx context.Context, o Options) (*Store, error) {
	bases, err := ParseAddr(o.Addr)
	if err != nil {
		return nil, err
	}
	if err := ValidCase(o.Case); err != nil {
		return nil, err
	}
	st, err := openState(o.Dir, o.Case)
	if err != nil {
		return nil, err
	}
	var tag [6]byte
	if _, err := rand.Read(tag[:]); err != nil {
		return nil, err
	}
	s := &Store{c: newClient(bases), caseID: o.Case, readOnly: o.ReadOnly, state: st, session: hex.EncodeToString(tag[:])}
	if err := s.c.query(ctx, s.streams(true)+" | limit 1", func(map[string]string) error {
		s.replaced = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("open case %s on %s: %w", o.Case, o.Addr, err)
	}
	if s.counts, err = s.openCounts(ctx); err != nil {
		return nil, fmt.Errorf("open case %s on %s: %w", o.Case, o.Addr, err)
	}
	return s, nil
}

// streams selects the case's records: all of them, or its replacements.
func (s *Store) streams(replacements bool) string {
	if replacements {
		return "{" + fieldCase + "=" + quote(s.caseID) + "," + fieldReplaced + `="1"}`
	}
	return "{" + fieldCase + "=" + quote(s.caseID) + "}"
}

// current selects the case's records that no replacement superseded.
func (s *Store) current() string {
	s.mu.RLock()
	replaced := s.replaced
	s.mu.RUnlock()
	if !replaced {
		return s.streams(false)
	}
	return s.streams(false) + " NOT " + fieldKey + ":in(" + s.streams(true) + " | fields " + fieldReplaces + ")"
}

// where is the filter of a read: the case's current records matching q in
// [since, until).
func (s *Store) where(q evidence.Query, since, until time.Time) (string, error) {
	if err := q.Check(); err != nil {
		return "", err
	}
	f, err := filter(q)
	if err != nil {
		return "", err
	}
	out := s.current()
	if t := timeFilter(since, until); t != "*" {
		out += " " + t
	}
	if f != "*" {
		out += " " + f
	}
	return out, nil
}

// events runs a query whose rows hold fieldEvent.
func (s *Store) events(ctx context.Context, q string) ([]evidence.Event, error) {
	var out []evidence.Event
	err := s.c.queryEvents(ctx, q+" | fields "+fieldEvent, func(ev evidence.Event) error {
		out = append(out, ev)
		return nil
	})
	return out, err
}

// count runs q | stats count().
func (s *Store) count(ctx context.Context, q string) (int64, error) {
	var n int64
	err := s.c.query(ctx, q+" | stats count() n", func(row map[string]string) error {
		_, err := fmt.Sscan(row["n"], &n)
		return err
	})
	return n, err
}

// Facet counts the values of field over the events matching q, the whole
// case from the counts kept.
func (s *Store) Facet(ctx context.Context, q evidence.Query, since, until time.Time, field string, size int) ([]evidence.Count, error) {
	if size <= 0 {
		size = 10
	}
	f, ok := evidence.LookupField(field)
	if !ok || !f.Countable() {
		return nil, fmt.Errorf("facet %s: unknown field", field)
	}
	if f.Type() == evidence.FieldText {
		return nil, fmt.Errorf("facet %s: a text field has no values to count on VictoriaLogs (docs/victorialogs.md)", field)
	}
	if q.IsAll() && since.IsZero() && until.IsZero() {
		s.mu.RLock()
		c := s.counts.Fields[field]
		s.mu.RUnlock()
		if c != nil {
			return s.Counts().Top(field, size), nil
		}
	}
	parts, err := s.wheres(q, since, until)
	if err != nil {
		return nil, err
	}
	pipe := " " + field + ":* | stats by (" + field + ") count() n"
	if f.Type() == evidence.FieldList {
		pipe = " " + field + `:* | split "\n" from ` + field + " | unroll (" + field + ") | stats by (" + field + ") count() n"
	}
	c := evidence.Counts{Fields: map[string]map[string]int64{field: {}}}
	for _, w := range parts {
		err = s.c.query(ctx, w+pipe, func(row map[string]string) error {
			var n int64
			_, err := fmt.Sscan(row["n"], &n)
			c.Fields[field][row[field]] += n
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return c.Top(field, size), nil
}

// Get returns one event by id.
func (s *Store) Get(ctx context.Context, id string) (evidence.Event, error) {
	evs, err := s.events(ctx, s.current()+" id:="+quote(id)+" | limit 1")
	if err != nil {
		return evidence.Event{}, err
	}
	if len(evs) == 0 {
		return evidence.Event{}, fmt.Errorf("%w: %s", evidence.ErrNotFound, id)
	}
	return evs[0], nil
}

// Counts returns the case's counts: read from VictoriaLogs when the store
// opened, kept up to date by Index and Replace.
func (s *Store) Counts() evidence.Counts {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.counts.Clone()
}

// State returns a checkpoint recorded by Index.
func (s *Store) State(key string) ([]byte, error) { return s.state.get(key), nil }

// idList is ids as a LogsQL list.
func idList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = quote(id)
	}
	return strings.Join(q, ",")
}

// Spans gives the first and the last time of every value of field among
// the case's current events, in one stats query (evidence.Spanner).
func (s *Store) Spans(ctx context.Context, field string) (map[string]evidence.ValueSpan, error) {
	f, ok := evidence.LookupField(field)
	if !ok || !f.Countable() || f.Type() != evidence.FieldExact {
		return nil, fmt.Errorf("spans of %s: not a keyword field", field)
	}
	out := map[string]evidence.ValueSpan{}
	err := s.c.query(ctx, s.current()+" "+field+":* | stats by ("+field+") min(_time) first, max(_time) last", func(row map[string]string) error {
		first, err := time.Parse(time.RFC3339Nano, row["first"])
		if err != nil {
			return fmt.Errorf("spans of %s: first of %q: %w", field, row[field], err)
		}
		last, err := time.Parse(time.RFC3339Nano, row["last"])
		if err != nil {
			return fmt.Errorf("spans of %s: last of %q: %w", field, row[field], err)
		}
		out[row[field]] = evidence.ValueSpan{First: first, Last: last}
		return nil
	})
	return out, err
}
