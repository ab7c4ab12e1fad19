package evidence

import (
	"context"
	"regexp"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// toBleve is the one translation of a typed query to Bleve: exact fields
// by term, text fields by their analysed words, wildcards and case folds by
// regular expressions over the terms, time ranges by the bucket terms of
// timerange.go. All gives nil: everything, which callers treat apart.
func (t *timeline) toBleve(q Query) query.Query {
	switch q.op {
	case OpAll:
		return nil
	case OpNone:
		return query.NewMatchNoneQuery()
	case OpAnd, OpNot:
		var pos, neg []query.Query
		subs := q.subs
		if q.op == OpNot {
			subs = []Query{q}
		}
		for _, s := range subs {
			if s.op == OpNot {
				neg = append(neg, t.toBleve(s.subs[0]))
			} else if b := t.toBleve(s); b != nil {
				pos = append(pos, b)
			}
		}
		var must query.Query
		switch len(pos) {
		case 0:
		case 1:
			must = pos[0]
		default:
			must = query.NewConjunctionQuery(pos)
		}
		if len(neg) == 0 {
			return must
		}
		var not query.Query = query.NewDisjunctionQuery(neg)
		if len(neg) == 1 {
			not = neg[0]
		}
		return &excludeQuery{must: must, not: not}
	case OpOr:
		ds := make([]query.Query, 0, len(q.subs))
		for _, s := range q.subs {
			b := t.toBleve(s)
			if b == nil {
				return nil
			}
			ds = append(ds, b)
		}
		return query.NewDisjunctionQuery(ds)
	case OpIDs:
		return query.NewDocIDQuery(q.values)
	case OpNumRange:
		return numRangeQuery(q.field, q.lo, q.hi, q.loIncl, q.hiIncl)
	case OpTimeRange:
		since, until := q.Span()
		if since.IsZero() {
			since = t.first
		}
		if until.IsZero() {
			until = t.last.Add(1)
		}
		return t.timeQuery(since, until)
	}
	return leafToBleve(q)
}

func leafToBleve(q Query) query.Query {
	fields, text := []string{q.field}, false
	switch q.field {
	case "":
		fields, text = bareFields, true
	case "id":
		fields = []string{idField}
	default:
		f, _ := LookupField(q.field)
		text = f.kind == textField
	}
	var ds []query.Query
	if q.op == OpTerm && text {
		// The words of the value, each a term of each field, in one flat
		// disjunction: Bleve unions the postings of such term queries
		// straight into a bitmap when nothing is scored.
		for _, w := range queryAnalyzer.words(q.value) {
			for _, f := range fields {
				t := query.NewTermQuery(w)
				t.SetField(f)
				ds = append(ds, t)
			}
		}
		if len(ds) == 0 {
			return query.NewMatchNoneQuery()
		}
	} else {
		for _, f := range fields {
			ds = append(ds, leafOn(q, f, text))
		}
	}
	if len(ds) == 1 {
		return ds[0]
	}
	return query.NewDisjunctionQuery(ds)
}

// queryAnalyzer splits a query's text as the index's analyzer does.
var queryAnalyzer = newAnalyzer()

// idField is where Bleve indexes each document's id; cordon indexes no
// second copy of it.
const idField = "_id"

// leafOn is leaf q, not a word of text, on one index field.
func leafOn(q Query, field string, text bool) query.Query {
	var out interface{ SetField(string) }
	switch {
	case q.op == OpTerm && !q.fold:
		out = query.NewTermQuery(q.value)
	case q.op == OpPrefix && !q.fold:
		out = query.NewPrefixQuery(q.value)
	default:
		out = query.NewRegexpQuery(leafRegexp(q, text))
	}
	out.SetField(field)
	return out.(query.Query)
}

// leafRegexp is the regular expression over whole terms that a term,
// prefix, wildcard or regexp leaf means; fold adds (?i), which is moot on
// text, indexed lower case.
func leafRegexp(q Query, text bool) string {
	var re string
	switch q.op {
	case OpTerm:
		re = regexp.QuoteMeta(q.value)
	case OpPrefix:
		re = regexp.QuoteMeta(q.value) + ".*"
	case OpWildcard:
		re = wildcardRegexp(q.value)
	default:
		re = q.value
	}
	if q.fold {
		re = "(?i)" + re
	}
	return re
}

// excludeQuery matches must (nil: everything) but not not. Bleve's
// BooleanQuery reads a must that finds nothing as no must at all, and so
// would return everything but not: this one does not.
type excludeQuery struct {
	must, not query.Query
}

func (q *excludeQuery) Searcher(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, opt search.SearcherOptions) (search.Searcher, error) {
	var must search.Searcher
	var err error
	if q.must == nil {
		must, err = searcher.NewMatchAllSearcher(ctx, r, 1, opt)
	} else {
		must, err = q.must.Searcher(ctx, r, m, opt)
	}
	if err != nil {
		return nil, err
	}
	if _, none := must.(*searcher.MatchNoneSearcher); none {
		return must, nil
	}
	not, err := q.not.Searcher(ctx, r, m, opt)
	if err != nil {
		must.Close()
		return nil, err
	}
	return searcher.NewBooleanSearcher(ctx, r, must, nil, not, opt)
}
