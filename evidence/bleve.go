package evidence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// versionFile sits beside the index directory and names the mapping version.
const versionFile = "mapping-version"

// countsKey is the internal key under which Counts are kept.
const countsKey = "cordon:counts"

// bleveStore is the embedded Store.
type bleveStore struct {
	idx      bleve.Index
	im       *mapping.IndexMappingImpl
	build    docBuilder
	readOnly bool

	mu     sync.RWMutex // guards counts
	counts Counts

	// persisted is closed when the last batch reached disk. Batches are
	// "unsafe" (not fsynced one by one) for speed; a crash loses only whole
	// recent batches, checkpoints included, so a re-run resumes before them.
	persisted chan struct{}
}

// Options tune how a store is opened.
type Options struct {
	ReadOnly bool
}

// Open opens the index at dir (creating it unless read-only). An index
// written by another mapping version returns ErrIncompatible.
func Open(dir string, opt Options) (Store, error) {
	im, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("build mapping: %w", err)
	}
	s := &bleveStore{im: im, build: newDocBuilder(im), readOnly: opt.ReadOnly}
	vpath := filepath.Join(dir, versionFile)
	if _, err := os.Stat(filepath.Join(dir, "index_meta.json")); errors.Is(err, os.ErrNotExist) {
		if opt.ReadOnly {
			return nil, fmt.Errorf("open index %s: %w", dir, os.ErrNotExist)
		}
		idx, err := bleve.NewUsing(dir, im, scorch.Name, scorch.Name, map[string]interface{}{"unsafe_batch": true})
		if err != nil {
			return nil, fmt.Errorf("create index %s: %w", dir, err)
		}
		if err := os.WriteFile(vpath, []byte(strconv.Itoa(MappingVersion)+"\n"), 0o644); err != nil {
			idx.Close()
			return nil, err
		}
		s.idx = idx
		return s, nil
	}
	v, err := os.ReadFile(vpath)
	if got := strings.TrimSpace(string(v)); err != nil || got != strconv.Itoa(MappingVersion) {
		if got == "" {
			got = "unknown"
		}
		return nil, fmt.Errorf("%w: %s was built with mapping version %s, this cordon uses version %d", ErrIncompatible, dir, got, MappingVersion)
	}
	cfg := map[string]interface{}{"read_only": opt.ReadOnly, "unsafe_batch": true}
	idx, err := bleve.OpenUsing(dir, cfg)
	if err != nil {
		return nil, fmt.Errorf("open index %s: %w", dir, err)
	}
	s.idx = idx
	raw, err := idx.GetInternal([]byte(countsKey))
	if err != nil {
		idx.Close()
		return nil, fmt.Errorf("read counts: %w", err)
	}
	if raw != nil {
		if err := json.Unmarshal(raw, &s.counts); err != nil {
			idx.Close()
			return nil, fmt.Errorf("read counts: %w", err)
		}
	}
	return s, nil
}

// Close waits for the last batch to be persisted, then closes the index.
func (s *bleveStore) Close() error {
	if s.persisted != nil {
		select {
		case <-s.persisted:
		case <-time.After(time.Minute):
		}
	}
	return s.idx.Close()
}

func (s *bleveStore) Counts() Counts {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.counts.clone()
}

func (s *bleveStore) State(key string) ([]byte, error) {
	return s.idx.GetInternal([]byte("state:" + key))
}

// Index adds the events that are not yet in the store. Checking which ids
// exist costs one query per batch and is what keeps re-ingest of a copy, a
// rotated file or a crashed run from counting an event twice.
func (s *bleveStore) Index(ctx context.Context, events []Event, state map[string][]byte) (int, error) {
	if s.readOnly {
		return 0, errors.New("index is open read-only")
	}
	fresh, err := s.missing(ctx, events)
	if err != nil {
		return 0, err
	}
	b := s.idx.NewBatch()
	s.mu.RLock()
	next := s.counts.clone()
	s.mu.RUnlock()
	for i := range fresh {
		doc, err := s.build.build(&fresh[i])
		if err != nil {
			return 0, fmt.Errorf("event %s: %w", fresh[i].ID, err)
		}
		if err := b.IndexAdvanced(doc); err != nil {
			return 0, fmt.Errorf("event %s: %w", fresh[i].ID, err)
		}
		next.add(&fresh[i])
	}
	for k, v := range state {
		b.SetInternal([]byte("state:"+k), v)
	}
	if len(fresh) > 0 {
		raw, err := json.Marshal(next)
		if err != nil {
			return 0, err
		}
		b.SetInternal([]byte(countsKey), raw)
	}
	done := make(chan struct{})
	var once sync.Once
	b.SetPersistedCallback(func(error) { once.Do(func() { close(done) }) })
	if err := s.idx.Batch(b); err != nil {
		return 0, fmt.Errorf("index batch: %w", err)
	}
	s.mu.Lock()
	s.counts = next
	s.persisted = done
	s.mu.Unlock()
	return len(fresh), nil
}

// missing returns the events whose ids are not in the index, first
// occurrence only.
func (s *bleveStore) missing(ctx context.Context, events []Event) ([]Event, error) {
	seen := make(map[string]bool, len(events))
	ids := make([]string, 0, len(events))
	for _, ev := range events {
		if !seen[ev.ID] {
			seen[ev.ID] = false
			ids = append(ids, ev.ID)
		}
	}
	if s.idx != nil && len(ids) > 0 && s.counts.Total > 0 {
		req := bleve.NewSearchRequestOptions(query.NewDocIDQuery(ids), len(ids), 0, false)
		req.Score = bleve.ScoreNone
		res, err := s.idx.SearchInContext(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("check existing ids: %w", err)
		}
		for _, h := range res.Hits {
			seen[h.ID] = true
		}
	}
	out := make([]Event, 0, len(events))
	for _, ev := range events {
		if present, ok := seen[ev.ID]; ok && !present {
			out = append(out, ev)
			seen[ev.ID] = true
		}
	}
	return out, nil
}

func (s *bleveStore) Get(ctx context.Context, id string) (Event, error) {
	req := bleve.NewSearchRequestOptions(query.NewDocIDQuery([]string{id}), 1, 0, false)
	req.Fields = []string{sourceField}
	res, err := s.idx.SearchInContext(ctx, req)
	if err != nil {
		return Event{}, err
	}
	if len(res.Hits) == 0 {
		return Event{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return decodeHit(res.Hits[0])
}

func decodeHit(h *search.DocumentMatch) (Event, error) {
	src, _ := h.Fields[sourceField].(string)
	var ev Event
	if err := json.Unmarshal([]byte(src), &ev); err != nil {
		return Event{}, fmt.Errorf("event %s: stored source unreadable: %w", h.ID, err)
	}
	return ev, nil
}

// buildQuery parses a query string and adds a time range.
func (s *bleveStore) buildQuery(q string, since, until time.Time) (query.Query, error) {
	var parts []query.Query
	if strings.TrimSpace(q) != "" {
		qq := query.NewQueryStringQuery(q)
		parsed, err := qq.Parse()
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrQuery, err)
		}
		if v, ok := parsed.(query.ValidatableQuery); ok {
			if err := v.Validate(); err != nil {
				return nil, fmt.Errorf("%w: %v", ErrQuery, err)
			}
		}
		parts = append(parts, parsed)
	}
	if !since.IsZero() || !until.IsZero() {
		parts = append(parts, timeRange(since, until))
	}
	switch len(parts) {
	case 0:
		return query.NewMatchAllQuery(), nil
	case 1:
		return parts[0], nil
	}
	return query.NewConjunctionQuery(parts), nil
}

// timeRange is [since, until); a zero bound is open.
func timeRange(since, until time.Time) query.Query {
	incl, excl := true, false
	r := query.NewDateRangeInclusiveQuery(since, until, &incl, &excl)
	r.SetField("time")
	return r
}

func timeSort(desc bool) search.SortOrder {
	return search.SortOrder{
		&search.SortField{Field: "time", Type: search.SortFieldAsDate, Desc: desc, Missing: search.SortFieldMissingLast},
		&search.SortDocID{Desc: desc},
	}
}

func (s *bleveStore) Search(ctx context.Context, r Request) (*Hits, error) {
	q, err := s.buildQuery(r.Query, r.Since, r.Until)
	if err != nil {
		return nil, err
	}
	limit := r.Limit
	if limit <= 0 {
		limit = 100
	}
	req := bleve.NewSearchRequestOptions(q, limit, r.Offset, false)
	req.Fields = []string{sourceField}
	switch r.Sort {
	case SortScore:
	case SortTimeDesc:
		req.SortByCustom(timeSort(true))
	case "", SortTime:
		req.SortByCustom(timeSort(false))
	default:
		return nil, fmt.Errorf("unknown sort %q (want time, -time or score)", r.Sort)
	}
	res, err := s.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	hits := &Hits{Total: res.Total, Took: res.Took}
	for _, h := range res.Hits {
		ev, err := decodeHit(h)
		if err != nil {
			return nil, err
		}
		hits.Events = append(hits.Events, ev)
	}
	return hits, nil
}

func (s *bleveStore) Facet(ctx context.Context, q string, since, until time.Time, field string, size int) ([]Count, error) {
	if size <= 0 {
		size = 10
	}
	if strings.TrimSpace(q) == "" && since.IsZero() && until.IsZero() {
		if c := s.Counts(); c.Fields[field] != nil {
			return c.Top(field, size), nil
		}
	}
	qq, err := s.buildQuery(q, since, until)
	if err != nil {
		return nil, err
	}
	req := bleve.NewSearchRequestOptions(qq, 0, 0, false)
	req.AddFacet(field, bleve.NewFacetRequest(field, size))
	res, err := s.idx.SearchInContext(ctx, req)
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
