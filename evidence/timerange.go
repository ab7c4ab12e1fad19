package evidence

import (
	"context"
	"sort"
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

// timeQuery matches events in [since, until): see spanQuery. A range
// holding every event the timeline knows matches everything.
func (t *timeline) timeQuery(since, until time.Time) query.Query {
	if !since.Before(until) || t.total == 0 {
		return query.NewMatchNoneQuery()
	}
	if !since.After(t.first) && until.After(t.last) {
		return query.NewMatchAllQuery()
	}
	return &spanQuery{since: since, until: until, minutes: t.minutes}
}

// spanQuery matches events in [since, until). The whole seconds inside are
// covered by the fewest day, hour, minute and second terms of the buckets
// that hold events, the fractions of a second at either end by the sort
// keys of the events in them, which start with the exact time. Its
// searcher is one flat disjunction of term searchers, which Bleve unions
// into a single bitmap when nothing is scored: a nested range searcher
// would stop that and cost a conjunction with a selective term several
// times more.
//
// The plan walks the populated minutes kept at ingest, never the calendar:
// evidence is written by the agent under investigation, and one record
// dated 9999-12-31 must not make a query step through three million empty
// days. Its terms number at most the populated days inside, plus the
// populated hours and minutes of the two days and hours at its ends, plus
// the seconds of the two minutes at its ends.
type spanQuery struct {
	since, until time.Time
	minutes      []int64 // Unix minutes holding events, ascending
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
	mins := q.minutes
	k := sort.Search(len(mins), func(k int) bool { return (mins[k]+1)*60 > lo })
	for k < len(mins) && mins[k]*60 < hi {
		x := mins[k] * 60
		next, whole := x+60, false // next: the first second past the bucket taken
		for _, u := range bucketUnits[:3] {
			if b := floorDiv(x, u.secs) * u.secs; b >= lo && b+u.secs <= hi {
				terms = append(terms, bucketTerm(u.letter, b/u.secs))
				next, whole = b+u.secs, true
				break
			}
		}
		if !whole { // a minute cut by an end: its seconds inside
			for s := max(x, lo); s < min(next, hi); s++ {
				terms = append(terms, bucketTerm('s', s))
			}
		}
		rest := mins[k:]
		k += sort.Search(len(rest), func(i int) bool { return rest[i]*60 >= next })
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
