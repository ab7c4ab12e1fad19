package evidence

import (
	"bytes"
	"context"
	"slices"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// parse translates a query for the index; All gives nil: everything.
func (s *bleveStore) parse(q Query) query.Query {
	return s.timeline().toBleve(q)
}

// buildQuery translates a query and adds a time range.
func (s *bleveStore) buildQuery(ctx context.Context, q Query, since, until time.Time) (query.Query, error) {
	return s.within(ctx, s.parse(q), q.String(), since, until)
}

// Choosing how a query meets a time range: a span's bitmap costs about
// 12 ns per event in the span, checking a match's sort key about 100 ns
// per match of the query.
const (
	filterRatio = 8    // filter when the query matches under 1/8 of the span
	filterFloor = 8192 // spans smaller than this are cheap either way
)

// within restricts base (parsed from qs; nil: everything) to [since,
// until), zero bounds open.
func (s *bleveStore) within(ctx context.Context, base query.Query, qs string, since, until time.Time) (query.Query, error) {
	if since.IsZero() && until.IsZero() {
		if base == nil {
			return query.NewMatchAllQuery(), nil
		}
		return base, nil
	}
	t := s.timeline()
	lo, hi := t.first, t.last.Add(time.Nanosecond)
	if !since.IsZero() && since.After(lo) {
		lo = since
	}
	if !until.IsZero() && until.Before(hi) {
		hi = until
	}
	span := t.timeQuery(lo, hi)
	if base == nil {
		return span, nil
	}
	if _, all := span.(*query.MatchAllQuery); all {
		return base, nil
	}
	if inSpan := t.between(lo, hi); inSpan >= filterFloor && lo.Before(hi) {
		n, err := s.countCached(ctx, qs, base)
		if err != nil {
			return nil, err
		}
		if int64(n)*filterRatio < inSpan {
			return &spanFilter{inner: base, lo: []byte(sortKey(lo, "")), hi: []byte(sortKey(hi, ""))}, nil
		}
	}
	return query.NewConjunctionQuery([]query.Query{base, span}), nil
}

// spanFilter matches the events of inner whose sort key lies in [lo, hi):
// it reads one doc value per match of inner, where a conjunction with the
// span would first gather every event of the span.
type spanFilter struct {
	inner  query.Query
	lo, hi []byte
}

func (q *spanFilter) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, opt search.SearcherOptions) (search.Searcher, error) {
	is, err := q.inner.Searcher(ctx, r, m, opt)
	if err != nil {
		return nil, err
	}
	dvr, err := r.DocValueReader([]string{sortField})
	if err != nil {
		is.Close()
		return nil, err
	}
	return searcher.NewFilteringSearcher(ctx, is, func(_ *search.SearchContext, d *search.DocumentMatch) bool {
		in := false
		_ = dvr.VisitDocValues(d.IndexInternalID, func(_ string, term []byte) {
			in = bytes.Compare(term, q.lo) >= 0 && bytes.Compare(term, q.hi) < 0
		})
		return in
	}), nil
}

// countedTotal answers how many events match from the counts kept at
// ingest, when the query is one exact value of a counted field
// (agent:agent-7): the total shown beside a first page, without visiting
// a hit. dst_host is left out: the index lowercases it, the counts do not.
func (s *bleveStore) countedTotal(q query.Query) (uint64, bool) {
	t, ok := q.(*query.TermQuery)
	if !ok || t.FieldVal == "dst_host" || !isCounted(t.FieldVal) {
		return 0, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return uint64(s.counts.Fields[t.FieldVal][t.Term]), true
}

func isCounted(field string) bool { return slices.Contains(CountedFields, field) }
