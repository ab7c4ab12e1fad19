package evidence

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"
)

// Matcher decides in memory whether an event matches a Bleve query string,
// the way the evidence index would: it parses with Bleve's own parser and
// evaluates the parsed query against the event's fields as the mapping
// indexes them (keywords exact, text by lowercased unicode tokens, the
// catch-all field for bare words). It serves the detectors' in-memory
// source and the clauses a store cannot answer before attribution is
// persisted.
type Matcher struct {
	query string
	p     pred
	// phrases counts quoted phrases: the index keeps no term positions,
	// so a phrase finds nothing there, and nothing here either.
	phrases int
}

// pred is a compiled query node. skip marks a node Bleve drops in
// query-string mode (a match with no tokens after analysis).
type pred interface {
	match(ev *Event) bool
}

type skip struct{}

func (skip) match(*Event) bool { return false }

// CompileQuery compiles a query string; the empty query matches every
// event, as it does for the store.
func CompileQuery(q string) (*Matcher, error) {
	if strings.TrimSpace(q) == "" {
		return &Matcher{query: q, p: always(true)}, nil
	}
	parsed, err := query.NewQueryStringQuery(q).Parse()
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", q, err)
	}
	an := newAnalyzer()
	p, err := compileNode(parsed, an)
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", q, err)
	}
	if _, ok := p.(skip); ok {
		p = always(false)
	}
	return &Matcher{query: q, p: p, phrases: an.phrases}, nil
}

// Phrases counts the quoted phrases on text fields in the query: the index
// keeps no term positions, so each of them finds nothing.
func (m *Matcher) Phrases() int { return m.phrases }

// Match reports whether ev matches.
func (m *Matcher) Match(ev *Event) bool { return m.p.match(ev) }

// String returns the query string.
func (m *Matcher) String() string { return m.query }

type always bool

func (a always) match(*Event) bool { return bool(a) }

func compileNode(q query.Query, an *analyzer) (pred, error) {
	switch q := q.(type) {
	case *query.BooleanQuery:
		return compileBool(q, an)
	case *query.ConjunctionQuery:
		return compileList(q.Conjuncts, an, true)
	case *query.DisjunctionQuery:
		if q.Min > 1 {
			return nil, fmt.Errorf("disjunction with a minimum of %v is not supported", q.Min)
		}
		return compileList(q.Disjuncts, an, false)
	case *query.MatchAllQuery:
		return always(true), nil
	case *query.MatchNoneQuery:
		return always(false), nil
	case *query.MatchQuery:
		if q.Fuzziness != 0 {
			return nil, fmt.Errorf("fuzzy term %q~ is not supported in rules", q.Match)
		}
		return compileTerm(q.FieldVal, q.Match, an)
	case *query.MatchPhraseQuery:
		f, err := fieldFor(q.FieldVal)
		if err != nil {
			return nil, err
		}
		if f.kind == kwField || f.kind == listField || f.kind == intField {
			// The store reads a quoted exact-match value as the whole value.
			return compileTerm(q.FieldVal, q.MatchPhrase, an)
		}
		an.phrases++
		return always(false), nil
	case *query.WildcardQuery:
		re := wildcardReplacer().Replace(q.Wildcard)
		return compilePattern(q.FieldVal, re, an)
	case *query.RegexpQuery:
		return compilePattern(q.FieldVal, q.Regexp, an)
	case *query.NumericRangeQuery:
		return compileNumRange(q)
	case *query.DateRangeQuery:
		return compileDateRange(q)
	}
	return nil, fmt.Errorf("%T is not supported in rules", q)
}

// compileBool has Bleve's query-string semantics: with a required clause
// the optional ones only score; without one, at least one optional clause
// must match; excluded clauses never may.
func compileBool(q *query.BooleanQuery, an *analyzer) (pred, error) {
	var must, should, not pred
	var err error
	if q.Must != nil {
		if must, err = compileNode(q.Must, an); err != nil {
			return nil, err
		}
	}
	if q.Should != nil {
		if should, err = compileNode(q.Should, an); err != nil {
			return nil, err
		}
	}
	if q.MustNot != nil {
		if not, err = compileNode(q.MustNot, an); err != nil {
			return nil, err
		}
	}
	isSkip := func(p pred) bool { _, ok := p.(skip); return p == nil || ok }
	if isSkip(must) && isSkip(should) && isSkip(not) {
		return skip{}, nil
	}
	b := boolPred{not: not}
	if isSkip(not) {
		b.not = nil
	}
	switch {
	case !isSkip(must):
		b.must = must
	case !isSkip(should):
		b.must = should
	default:
		b.must = always(true)
	}
	return b, nil
}

type boolPred struct{ must, not pred }

func (b boolPred) match(ev *Event) bool {
	return b.must.match(ev) && (b.not == nil || !b.not.match(ev))
}

func compileList(qs []query.Query, an *analyzer, and bool) (pred, error) {
	var ps []pred
	for _, q := range qs {
		p, err := compileNode(q, an)
		if err != nil {
			return nil, err
		}
		if _, ok := p.(skip); !ok {
			ps = append(ps, p)
		}
	}
	switch {
	case len(ps) == 0:
		return skip{}, nil
	case len(ps) == 1:
		return ps[0], nil
	case and:
		return andPred(ps), nil
	}
	return orPred(ps), nil
}

type andPred []pred

func (a andPred) match(ev *Event) bool {
	for _, p := range a {
		if !p.match(ev) {
			return false
		}
	}
	return true
}

type orPred []pred

func (o orPred) match(ev *Event) bool {
	for _, p := range o {
		if p.match(ev) {
			return true
		}
	}
	return false
}

func fieldFor(name string) (Field, error) {
	f, ok := LookupField(name)
	if !ok {
		return Field{}, fmt.Errorf("unknown field %q", name)
	}
	return f, nil
}

// compileTerm is a match: the exact value of a keyword field, any of the
// tokens of a text field (the default operator is OR).
func compileTerm(name, text string, an *analyzer) (pred, error) {
	f, err := fieldFor(name)
	if err != nil {
		return nil, err
	}
	switch f.kind {
	case kwField, listField:
		return exactPred{f: f, v: text}, nil
	case intField:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || strconv.FormatInt(n, 10) != text {
			return always(false), nil // the index holds canonical decimals only
		}
		return intPred{f: f, n: n}, nil
	case numField, timeField:
		return always(false), nil // a term never matches a numeric field
	}
	toks := an.tokens(text)
	if len(toks) == 0 {
		return skip{}, nil
	}
	return textPred{f: f, toks: toks, an: an}, nil
}

type exactPred struct {
	f Field
	v string
}

func (p exactPred) match(ev *Event) bool {
	if p.f.kind == kwField {
		return p.f.str(ev) == p.v
	}
	for _, v := range p.f.list(ev) {
		if v == p.v {
			return true
		}
	}
	return false
}

type intPred struct {
	f Field
	n int64
}

func (p intPred) match(ev *Event) bool { n := p.f.num(ev); return n != 0 && n == p.n }
