package evidence

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Errors a Store returns that callers act on.
var (
	// ErrIncompatible: the index on disk was built by another mapping version.
	ErrIncompatible = errors.New("incompatible index")
	// ErrNotFound: no event with that id.
	ErrNotFound = errors.New("event not found")
	// ErrQuery: a query does not parse, or could not match anything.
	ErrQuery = errors.New("bad query")
)

// Reader is the reading half of a Store: what the readers of a case (a
// console's panes, attribution's views of the evidence) are handed, by
// the case rather than as the store itself.
type Reader interface {
	// Search runs a typed query.
	Search(ctx context.Context, req Request) (*Hits, error)
	// Page returns up to req.Limit events in time order starting at a
	// cursor, for a timeline that scrolls through a million events.
	Page(ctx context.Context, req PageRequest) (*Page, error)
	// Facet counts the values of field over the events matching query.
	Facet(ctx context.Context, q Query, since, until time.Time, field string, size int) ([]Count, error)
	// Get returns one event by id.
	Get(ctx context.Context, id string) (Event, error)
	// Counts returns the whole-incident counts kept at ingest.
	Counts() Counts
}

// Store indexes and searches events. Bleve is the embedded implementation;
// nothing outside this package sees its types.
type Store interface {
	Reader
	// Index adds events, skipping ids already in the store, and records
	// state (checkpoints) atomically with them. It returns how many were new.
	Index(ctx context.Context, events []Event, state map[string][]byte) (int, error)
	// State returns a value recorded by Index, nil if none.
	State(key string) ([]byte, error)
	// Replace rewrites events already in the store (same id and time, new
	// field values such as an attributed agent) and adjusts the counts.
	Replace(ctx context.Context, events []Event) (int, error)
	// Sync waits until everything Index and Replace took is on disk (they
	// return once it is searchable). It returns ErrWrite when some of it
	// could not be written: nothing is then success, and no checkpoint may
	// be reported past what is on disk.
	Sync(ctx context.Context) error
	// Close waits for the writes (as Sync) and releases the index.
	Close() error
}

// Preparer is a Store that can do the CPU-heavy half of Index (building
// and analysing documents) ahead of time, and index batches without
// waiting for each: an ingest pipeline prepares one batch while earlier
// ones are being built, several at once. IndexPrepared returns once a
// builder has the batch; landed runs when it is searchable and stored
// when it is on disk (either may be nil). States are written in the order
// of the calls, each once every earlier batch is searchable. Index(events,
// state) is IndexPrepared(Prepare(events), state, …) waiting for landed.
type Preparer interface {
	Prepare(events []Event) (*Prepared, error)
	IndexPrepared(ctx context.Context, p *Prepared, state map[string][]byte, landed func(), stored func(fresh int)) (int, error)
}

// Sort orders.
const (
	SortTime     = "time"
	SortTimeDesc = "-time"
	SortScore    = "score"
)

// Request is a search.
type Request struct {
	Query  Query     // the zero Query matches everything
	Since  time.Time // inclusive; zero = unbounded
	Until  time.Time // exclusive; zero = unbounded
	Sort   string    // SortTime (default), SortTimeDesc or SortScore
	Limit  int       // 0 means 100
	Offset int
}

// Hits is a page of search results.
type Hits struct {
	Total  uint64
	Events []Event
	Took   time.Duration
}

// PageRequest asks for a timeline page.
type PageRequest struct {
	Query    Query
	Since    time.Time // lower bound of the whole view (optional)
	Until    time.Time // upper bound of the whole view (optional)
	From     time.Time // page starts at this time (zero: the start)
	After    Cursor    // or just after this event (takes precedence over From)
	Backward bool      // page ends just before From/After, newest last
	Limit    int       // 0 means 100
}

// defaultLimit is how many events a search or a page holds when its
// Limit is not set.
const defaultLimit = 100

func limitOr(n int) int {
	if n <= 0 {
		return defaultLimit
	}
	return n
}

// newestFirst reads a search's order: newest first for SortTimeDesc,
// oldest first for SortTime (and for SortScore in a store that does not
// rank), an error for any other.
func (r Request) newestFirst() (bool, error) {
	switch r.Sort {
	case "", SortTime, SortScore:
		return false, nil
	case SortTimeDesc:
		return true, nil
	}
	return false, fmt.Errorf("unknown sort %q (want time, -time or score)", r.Sort)
}

// Cursor is an opaque position in time order.
type Cursor struct {
	Time time.Time
	ID   string
}

// Page is one timeline page, in ascending time order.
type Page struct {
	Events []Event
	// First and Last are cursors for the neighbouring pages.
	First, Last Cursor
	// More reports whether events exist beyond the page in its direction.
	More bool
}

// Count is a facet value and how many events have it.
type Count struct {
	Value string `json:"value"`
	Count int64  `json:"count"`
}
