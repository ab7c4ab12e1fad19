package evidence

import (
	"context"
	"strconv"
	"time"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// bucketField holds an event's time at four granularities: its day, hour,
// minute and second. With sortField it replaces a datetime field, which
// indexes sixteen prefix-coded terms per event, half of them unique to the
// event, and cost a third of ingest time.
const bucketField = "_tb"

// bucketUnits, coarsest first; each term is the unit's letter and the
// number of whole units since the epoch.
var bucketUnits = []struct {
	letter byte
	secs   int64
}{{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}}

func bucketTerm(letter byte, n int64) string {
	return string(letter) + strconv.FormatInt(n, 36)
}

// floorDiv divides rounding down, so that times before the epoch fall in
// the same buckets however they are reached.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// timeBuckets are the bucket terms of t.
func timeBuckets(t time.Time) []string {
	sec := t.Unix()
	out := make([]string, len(bucketUnits))
	for i, u := range bucketUnits {
		out[i] = bucketTerm(u.letter, floorDiv(sec, u.secs))
	}
	return out
}

// timeQuery matches events in [since, until): see spanQuery.
func timeQuery(since, until time.Time) query.Query {
	if !since.Before(until) {
		return query.NewMatchNoneQuery()
	}
	return &spanQuery{since: since, until: until}
}

// spanQuery matches events in [since, until). The whole seconds inside are
// covered by the fewest day, hour, minute and second terms (at most a few
// hundred for any span), the fractions of a second at either end by the
// sort keys of the events in them, which start with the exact time. Its
// searcher is one flat disjunction of term searchers, which Bleve unions
// into a single bitmap when nothing is scored: a nested range searcher
// would stop that and cost a conjunction with a selective term several
// times more.
type spanQuery struct {
	since, until time.Time
}

// plan returns the bucket terms and the [lo, hi) sort-key ranges covering
// the span.
func (q *spanQuery) plan() (terms []string, edges [][2]string) {
	lo := q.since.Unix()
	if q.since.Nanosecond() > 0 {
		lo++
	}
	hi := q.until.Unix()
	if lo >= hi {
		return nil, [][2]string{{sortKey(q.since, ""), sortKey(q.until, "")}}
	}
	if first := time.Unix(lo, 0); q.since.Before(first) {
		edges = append(edges, [2]string{sortKey(q.since, ""), sortKey(first, "")})
	}
	for x := lo; x < hi; {
		for _, u := range bucketUnits {
			if floorDiv(x, u.secs)*u.secs == x && x+u.secs <= hi {
				terms = append(terms, bucketTerm(u.letter, x/u.secs))
				x += u.secs
				break
			}
		}
	}
	if last := time.Unix(hi, 0); last.Before(q.until) {
		edges = append(edges, [2]string{sortKey(last, ""), sortKey(q.until, "")})
	}
	return terms, edges
}

func (q *spanQuery) Searcher(ctx context.Context, r index.IndexReader, _ mapping.IndexMapping, opt search.SearcherOptions) (search.Searcher, error) {
	terms, edges := q.plan()
	var ss []search.Searcher
	add := func(term, field string) error {
		ts, err := searcher.NewTermSearcher(ctx, r, term, field, 1, opt)
		if err == nil {
			ss = append(ss, ts)
		}
		return err
	}
	for _, t := range terms {
		if err := add(t, bucketField); err != nil {
			return nil, err
		}
	}
	for _, e := range edges {
		if err := q.addKeys(r, e, add); err != nil {
			return nil, err
		}
	}
	if len(ss) == 0 {
		return searcher.NewMatchNoneSearcher(r)
	}
	return searcher.NewDisjunctionSearcher(ctx, r, ss, 0, opt)
}

// addKeys adds the sort keys in [e[0], e[1]).
func (q *spanQuery) addKeys(r index.IndexReader, e [2]string, add func(term, field string) error) error {
	dict, err := r.FieldDictRange(sortField, []byte(e[0]), []byte(e[1]))
	if err != nil {
		return err
	}
	defer dict.Close()
	for {
		de, err := dict.Next()
		if err != nil || de == nil {
			return err
		}
		if de.Term >= e[0] && de.Term < e[1] {
			if err := add(de.Term, sortField); err != nil {
				return err
			}
		}
	}
}

// rewriteTime replaces the datetime ranges a query string parses into
// (time:>"2026-07-21T10:00:00Z") by timeQuery over [lo, hi), the span of
// the incident's events, which bounds the open ends; and a quoted value on
// an exact-match field by a term query.
func rewriteTime(q query.Query, lo, hi time.Time) query.Query {
	switch x := q.(type) {
	case *query.MatchPhraseQuery:
		// A quoted value on an exact-match field (agent:"agent-7") is the
		// whole value: keyword fields keep no positions for a phrase.
		if isKeyword(x.FieldVal) {
			t := query.NewTermQuery(x.MatchPhrase)
			t.SetField(x.FieldVal)
			return t
		}
	case *query.BooleanQuery:
		x.Must = rewriteTime(x.Must, lo, hi)
		x.Should = rewriteTime(x.Should, lo, hi)
		x.MustNot = rewriteTime(x.MustNot, lo, hi)
	case *query.ConjunctionQuery:
		for i := range x.Conjuncts {
			x.Conjuncts[i] = rewriteTime(x.Conjuncts[i], lo, hi)
		}
	case *query.DisjunctionQuery:
		for i := range x.Disjuncts {
			x.Disjuncts[i] = rewriteTime(x.Disjuncts[i], lo, hi)
		}
	case *query.DateRangeQuery:
		if x.Field() != "time" {
			return q
		}
		since, until := lo, hi
		if !x.Start.IsZero() {
			since = x.Start.Time
			if x.InclusiveStart != nil && !*x.InclusiveStart {
				since = since.Add(time.Nanosecond)
			}
		}
		if !x.End.IsZero() {
			until = x.End.Time
			if x.InclusiveEnd != nil && *x.InclusiveEnd {
				until = until.Add(time.Nanosecond)
			}
		}
		return timeQuery(maxTime(since, lo), minTime(until, hi))
	}
	return q
}
