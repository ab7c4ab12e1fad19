package evidence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
)

// versionFile sits beside the index directory and names the mapping version.
const versionFile = "mapping-version"

// countsKey is the internal key under which Counts are kept.
const countsKey = "cordon:counts"

// bleveStore is the embedded Store.
type bleveStore struct {
	dir      string
	idxMu    sync.RWMutex // guards idx, replaced once if a write fails, and resting
	idx      bleve.Index
	resting  bool // idx is closed until the next read (Rest)
	im       *mapping.IndexMappingImpl
	build    docBuilder
	readOnly bool

	mu          sync.RWMutex // guards counts, tl and matchCounts
	counts      Counts
	tl          *timeline         // counts laid out for the pager; nil until needed
	matchCounts map[string]uint64 // query -> matches, until the next batch

	// persisted are closed as the batches written reach disk (those not
	// closed yet at the last write are kept). Batches are "unsafe" (not
	// fsynced one by one) for speed; a crash loses only whole recent
	// batches, checkpoints included, so a re-run resumes before them. A
	// failure to write them is kept in ws (see persist.go).
	persisted []unpersisted
	ws        *writeState
	builders  *builders
}

// Options tune how a store is opened.
type Options struct {
	ReadOnly bool
	// Builders is how many batches may be built at once (0: one fewer
	// than GOMAXPROCS; at least 1, at most maxBuilders).
	Builders int
}

// Open opens the index at dir (creating it unless read-only). An index
// written by another mapping version returns ErrIncompatible.
func Open(dir string, opt Options) (Store, error) {
	im, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("build mapping: %w", err)
	}
	s := &bleveStore{im: im, build: newDocBuilder(im), readOnly: opt.ReadOnly, ws: newWriteState(), dir: dir, builders: newBuilders(opt.Builders)}
	vpath := filepath.Join(dir, versionFile)
	if _, err := os.Stat(filepath.Join(dir, "index_meta.json")); errors.Is(err, os.ErrNotExist) {
		if opt.ReadOnly {
			return nil, fmt.Errorf("open index %s: %w", dir, os.ErrNotExist)
		}
		if err := create(dir, im); err != nil {
			return nil, err
		}
	}
	v, err := os.ReadFile(vpath)
	if got := strings.TrimSpace(string(v)); err != nil || got != strconv.Itoa(MappingVersion) {
		if got == "" {
			got = "unknown"
		}
		return nil, fmt.Errorf("%w: %s was built with mapping version %s, this cordon uses version %d", ErrIncompatible, dir, got, MappingVersion)
	}
	cfg := map[string]interface{}{"read_only": opt.ReadOnly, "unsafe_batch": true, "asyncErrorCallbackName": asyncErrorsName}
	if !opt.ReadOnly {
		s.register(dir)
	}
	idx, err := bleve.OpenUsing(dir, cfg)
	if err != nil {
		s.unregister()
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	s.idx = idx
	base, deltas, total, err := readCountsAndDeltas(idx)
	if err == nil && len(deltas) > 0 && !opt.ReadOnly {
		err = s.foldLeftovers(total, deltas)
	}
	if err != nil {
		idx.Close()
		s.unregister()
		return nil, err
	}
	s.counts, s.builders.base = total, base
	if len(deltas) > 0 && !opt.ReadOnly {
		s.builders.base = total.clone() // folded
	}
	return s, nil
}

// create builds an empty index at dir. It is built beside dir and renamed
// into place once its mapping is on disk, so that a process killed while
// creating it leaves no index that cannot be opened: the next run finds
// none and creates it again.
func create(dir string, im *mapping.IndexMappingImpl) error {
	tmp := dir + ".new"
	for _, d := range []string{tmp, dir} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("create index %s: %w", dir, err)
		}
	}
	idx, err := bleve.NewUsing(tmp, im, scorch.Name, scorch.Name, map[string]interface{}{"unsafe_batch": true})
	if err != nil {
		return fmt.Errorf("create index %s: %w", dir, err)
	}
	s := &bleveStore{im: im, idx: idx, ws: newWriteState(), builders: newBuilders(1)}
	// With unsafe_batch, the mapping bleve stores at creation reaches the
	// disk with a later snapshot: an empty batch whose persistence Close
	// waits for carries it down.
	err = s.commit(idx.NewBatch(), &Counts{}, nil)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, versionFile), []byte(strconv.Itoa(MappingVersion)+"\n"), 0o600)
	}
	if err == nil {
		err = private(tmp)
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err == nil {
		err = syncDir(filepath.Dir(dir))
	}
	if err != nil {
		return fmt.Errorf("create index %s: %w", dir, err)
	}
	return nil
}

// private takes every permission but the owner's from the index bleve
// created at dir: it writes index_meta.json world-readable, and the index
// holds the evidence. The segments it writes later are 0600, in a 0700
// directory.
func private(dir string) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := os.FileMode(0o600)
		if d.IsDir() {
			mode = 0o700
		}
		return os.Chmod(p, mode)
	})
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// index is the Bleve index the store reads and writes, opened again if
// it rests.
func (s *bleveStore) index() bleve.Index {
	s.idxMu.RLock()
	idx, resting := s.idx, s.resting
	s.idxMu.RUnlock()
	if !resting {
		return idx
	}
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	if s.resting {
		// Where it cannot be opened, reads fail on the closed index,
		// saying so, and the next tries again.
		if idx, err := bleve.OpenUsing(s.dir, map[string]interface{}{"read_only": true}); err == nil {
			s.idx, s.resting = idx, false
		}
	}
	return s.idx
}

// Rester is a store that can let its index go until it is next read.
type Rester interface {
	// Rest closes the index of a store open for reading: what it holds
	// in memory goes (the time sort key's doc values are 8 bytes an
	// event, read in whole when the index opens), and the next read
	// opens it again from disk. The caller holds the workspace, so that
	// nothing writes the index meanwhile, and reads nothing of the store
	// while Rest runs: a read begun before fails on the closed index. A
	// store open for writing does not rest.
	Rest()
}

// Rest implements Rester.
func (s *bleveStore) Rest() {
	if !s.readOnly {
		return
	}
	s.idxMu.Lock()
	defer s.idxMu.Unlock()
	if !s.resting && s.idx.Close() == nil {
		s.resting = true
	}
}

func (s *bleveStore) Counts() Counts {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.counts.clone()
}

func (s *bleveStore) State(key string) ([]byte, error) {
	return s.index().GetInternal([]byte("state:" + key))
}

func (s *bleveStore) Get(ctx context.Context, id string) (Event, error) {
	if err := ctx.Err(); err != nil {
		return Event{}, err
	}
	srcs, err := s.sources([]string{id})
	if err != nil {
		return Event{}, err
	}
	st, ok := srcs[id]
	if !ok {
		return Event{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return st.event(id)
}

// Search runs a query. Time-ordered results come from windows planned
// with the per-minute counts (see ordered), so that the first page of a
// query matching 100,000 events never sorts them all.
func (s *bleveStore) Search(ctx context.Context, r Request) (*Hits, error) {
	began := time.Now()
	limit := limitOr(r.Limit)
	if r.Sort == SortScore {
		return s.searchByScore(ctx, r, limit)
	}
	desc, err := r.newestFirst()
	if err != nil {
		return nil, err
	}
	if err := r.Query.check(); err != nil {
		return nil, err
	}
	base, qs := s.parse(r.Query), r.Query.String()
	full, err := s.within(ctx, base, qs, r.Since, r.Until)
	if err != nil {
		return nil, err
	}
	total, counted := uint64(0), false
	if r.Since.IsZero() && r.Until.IsZero() {
		total, counted = s.countedTotal(base)
	}
	if !counted {
		total, err = s.count(ctx, full)
	}
	if err != nil || total == 0 || r.Offset >= int(total) {
		return &Hits{Total: total, Took: time.Since(began)}, err
	}
	t := s.timeline()
	inSpan := t.total
	if !r.Since.IsZero() || !r.Until.IsZero() {
		inSpan = t.between(r.Since, r.Until)
	}
	sel := min(1, float64(total)/float64(max(1, inSpan)))
	evs, _, err := s.ordered(ctx, base, qs, sel, r.Since, r.Until, time.Time{}, Cursor{}, desc, r.Offset+limit)
	if err != nil {
		return nil, err
	}
	if desc {
		for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
			evs[i], evs[j] = evs[j], evs[i]
		}
	}
	if r.Offset < len(evs) {
		evs = evs[r.Offset:]
	} else {
		evs = nil
	}
	return &Hits{Total: total, Events: evs, Took: time.Since(began)}, nil
}

func (s *bleveStore) searchByScore(ctx context.Context, r Request, limit int) (*Hits, error) {
	if err := r.Query.check(); err != nil {
		return nil, err
	}
	q, err := s.buildQuery(ctx, r.Query, r.Since, r.Until)
	if err != nil {
		return nil, err
	}
	req := bleve.NewSearchRequestOptions(q, limit, r.Offset, false)
	res, err := s.index().SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	evs, err := s.events(res.Hits)
	if err != nil {
		return nil, err
	}
	return &Hits{Total: res.Total, Events: evs, Took: res.Took}, nil
}

func (s *bleveStore) Facet(ctx context.Context, q Query, since, until time.Time, field string, size int) ([]Count, error) {
	if size <= 0 {
		size = 10
	}
	if err := q.check(); err != nil {
		return nil, err
	}
	if q.IsAll() && since.IsZero() && until.IsZero() {
		s.mu.RLock()
		counted := s.counts.Fields[field] != nil
		var top []Count
		if counted {
			top = s.counts.Top(field, size)
		}
		s.mu.RUnlock()
		if counted {
			return top, nil
		}
	}
	qq, err := s.buildQuery(ctx, q, since, until)
	if err != nil {
		return nil, err
	}
	req := bleve.NewSearchRequestOptions(qq, 0, 0, false)
	req.Score = bleve.ScoreNone
	req.AddFacet(field, bleve.NewFacetRequest(field, size))
	res, err := s.index().SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("facet %s: %w", field, err)
	}
	var out []Count
	if fr := res.Facets[field]; fr != nil && fr.Terms != nil {
		for _, t := range fr.Terms.Terms() {
			out = append(out, Count{Value: t.Term, Count: int64(t.Count)})
		}
	}
	return out, nil
}

// readCounts reads the counts an index keeps.
func readCounts(idx bleve.Index) (Counts, error) {
	var c Counts
	raw, err := idx.GetInternal([]byte(countsKey))
	if err == nil && raw != nil {
		err = json.Unmarshal(raw, &c)
	}
	if err != nil {
		return Counts{}, fmt.Errorf("read counts: %w", err)
	}
	return c, nil
}
