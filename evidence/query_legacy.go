package evidence

import (
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"
)

// ParseLegacy reads a query as cordon read it before its own syntax: with
// Bleve's query-string parser, where an unsigned clause is optional (with a
// + clause beside it, it only scores; without one, any of them will do).
// It serves `cordon rules check`, which finds the rules, saved searches
// and history entries whose meaning changed, and the hint that tells a
// responder how a query read before.
func ParseLegacy(text string) (Query, error) {
	if err := checkNesting(text); err != nil {
		return Query{}, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	if strings.TrimSpace(text) == "" {
		return All(), nil
	}
	parsed, err := query.NewQueryStringQuery(text).Parse()
	if err != nil {
		return Query{}, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	q, skip, err := fromBleve(parsed)
	if err != nil {
		return Query{}, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	if skip {
		return None(), nil
	}
	return q, nil
}

// Changed reports whether text means something else in cordon's syntax
// than it did in Bleve's: then old is what it meant, which the new syntax
// writes as old.String(). A query that uses the new syntax (AND, OR, NOT,
// parentheses) was written for it and has not changed. A query that the old
// parser refused, or the new one does, returns that error.
func Changed(text string) (old, now Query, changed bool, err error) {
	now, err = Parse(text)
	if err != nil {
		return Query{}, Query{}, false, err
	}
	if UsesNewSyntax(text) {
		return now, now, false, nil
	}
	old, err = ParseLegacy(text)
	if err != nil {
		return now, now, false, nil // the old parser refused it: nothing to keep
	}
	return old, now, !normal(old).Equal(normal(now)), nil
}

// normal writes NOT (a OR b) as NOT a AND NOT b, so that two readings
// that differ only so compare equal.
func normal(q Query) Query {
	switch q.op {
	case OpAnd, OpOr:
		subs := make([]Query, len(q.subs))
		for i, s := range q.subs {
			subs[i] = normal(s)
		}
		if q.op == OpAnd {
			return And(subs...)
		}
		return Or(subs...)
	case OpNot:
		if s := q.subs[0]; s.op == OpOr {
			nots := make([]Query, len(s.subs))
			for i, x := range s.subs {
				nots[i] = Not(normal(x))
			}
			return And(nots...)
		}
	}
	return q
}

// UsesNewSyntax reports a query written with what only cordon's syntax
// has: AND, OR or NOT as words, or parentheses outside quotes and
// regular expressions.
func UsesNewSyntax(text string) bool {
	p := &parser{src: text}
	for !p.eof() {
		p.space()
		if p.eof() {
			break
		}
		if p.operator() != "" {
			return true
		}
		switch p.src[p.pos] {
		case '(', ')':
			return true
		case '"':
			_, _ = p.quoted()
			continue
		}
		if _, ok := p.fieldName(); ok && !p.eof() && p.src[p.pos] == '(' {
			return true
		}
		if !p.eof() && p.src[p.pos] == '/' {
			_, _ = p.regexp()
			continue
		}
		for !p.eof() && !isSpace(p.src[p.pos]) && p.src[p.pos] != '(' && p.src[p.pos] != ')' {
			if p.src[p.pos] == '\\' {
				p.pos++
			}
			p.pos++
		}
	}
	return false
}

// fromBleve turns a parsed Bleve query into the typed query of the same
// meaning. skip marks a node Bleve drops in query-string mode (a match
// with no tokens after analysis).
func fromBleve(q query.Query) (Query, bool, error) {
	switch x := q.(type) {
	case *query.BooleanQuery:
		var must, should, not Query
		var mskip, sskip, nskip = true, true, true
		var err error
		if x.Must != nil {
			if must, mskip, err = fromBleve(x.Must); err != nil {
				return Query{}, false, err
			}
		}
		if x.Should != nil {
			if should, sskip, err = fromBleve(x.Should); err != nil {
				return Query{}, false, err
			}
		}
		if x.MustNot != nil {
			if not, nskip, err = fromBleve(x.MustNot); err != nil {
				return Query{}, false, err
			}
		}
		if mskip && sskip && nskip {
			return Query{}, true, nil
		}
		base := All()
		switch {
		case !mskip:
			base = must
		case !sskip:
			base = should
		}
		if nskip {
			return base, false, nil
		}
		return And(base, Not(not)), false, nil
	case *query.ConjunctionQuery:
		return listFromBleve(x.Conjuncts, And)
	case *query.DisjunctionQuery:
		if x.Min > 1 {
			return Query{}, false, fmt.Errorf("a disjunction with a minimum of %v", x.Min)
		}
		return listFromBleve(x.Disjuncts, Or)
	case *query.MatchAllQuery:
		return All(), false, nil
	case *query.MatchNoneQuery:
		return None(), false, nil
	case *query.MatchQuery:
		if x.Fuzziness != 0 {
			return Query{}, false, fmt.Errorf("fuzzy term %q~", x.Match)
		}
		return legacyTerm(x.FieldVal, x.Match)
	case *query.MatchPhraseQuery:
		f, ok := LookupField(x.FieldVal)
		if !ok {
			return Query{}, false, fmt.Errorf("unknown field %q", x.FieldVal)
		}
		if f.kind == textField {
			return None(), false, nil // no positions: a phrase found nothing
		}
		return legacyTerm(x.FieldVal, x.MatchPhrase)
	case *query.WildcardQuery:
		if err := checkField(x.FieldVal); x.FieldVal != "" && err != nil {
			return Query{}, false, err
		}
		w := x.Wildcard
		if w == "*" && x.FieldVal != "" {
			return Exists(x.FieldVal), false, nil
		}
		if strings.HasSuffix(w, "*") && !strings.ContainsAny(w[:len(w)-1], `*?\`) {
			return Prefix(x.FieldVal, w[:len(w)-1]), false, nil
		}
		return Wildcard(x.FieldVal, w), false, nil
	case *query.RegexpQuery:
		if err := checkField(x.FieldVal); x.FieldVal != "" && err != nil {
			return Query{}, false, err
		}
		return Regexp(x.FieldVal, x.Regexp), false, nil
	case *query.NumericRangeQuery:
		f, ok := LookupField(x.FieldVal)
		if !ok {
			return Query{}, false, fmt.Errorf("unknown field %q", x.FieldVal)
		}
		if f.kind != numField {
			return None(), false, nil
		}
		return NumRange(x.FieldVal, x.Min, x.Max, x.InclusiveMin == nil || *x.InclusiveMin, x.InclusiveMax != nil && *x.InclusiveMax), false, nil
	case *query.DateRangeQuery:
		if x.FieldVal != "time" {
			return None(), false, nil
		}
		q := TimeRange(x.Start.Time, x.End.Time)
		q.sinceExcl = !x.Start.IsZero() && x.InclusiveStart != nil && !*x.InclusiveStart
		q.untilIncl = !x.End.IsZero() && x.InclusiveEnd != nil && *x.InclusiveEnd
		return q, false, nil
	}
	return Query{}, false, fmt.Errorf("%T is not supported", q)
}

func listFromBleve(qs []query.Query, join func(...Query) Query) (Query, bool, error) {
	var out []Query
	for _, q := range qs {
		p, skip, err := fromBleve(q)
		if err != nil {
			return Query{}, false, err
		}
		if !skip {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return Query{}, true, nil
	}
	return join(out...), false, nil
}

// legacyTerm is a match query of the old syntax: exact on a keyword, any
// word on text, nothing for a value the field cannot hold.
func legacyTerm(field, value string) (Query, bool, error) {
	f, ok := LookupField(field)
	if !ok {
		return Query{}, false, fmt.Errorf("unknown field %q", field)
	}
	switch f.kind {
	case textField:
		if len(newAnalyzer().tokens(value)) == 0 {
			return Query{}, true, nil
		}
	case intField:
		if n, ok := parseNumber(value); !ok || formatNumber(n) != value || strings.Contains(value, ".") {
			return None(), false, nil
		}
	case numField, timeField:
		return None(), false, nil
	case kwField, listField:
		if field == "dst_host" && value != lowerASCII(value) {
			return None(), false, nil // the index holds host names lowercased
		}
	}
	return Term(field, value), false, nil
}
