package evidence

import (
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"
)

// ValidateQuery checks a query string the way Search would parse it, without
// a store, so that saved queries (playbooks, config) can be checked when they
// are loaded rather than when a responder first runs them. It also refuses a
// field the index does not have: Bleve would accept it and find nothing.
// Errors wrap ErrQuery.
func ValidateQuery(qs string) error {
	if strings.TrimSpace(qs) == "" {
		return nil
	}
	parsed, err := query.NewQueryStringQuery(qs).Parse()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrQuery, err)
	}
	if v, ok := parsed.(query.ValidatableQuery); ok {
		if err := v.Validate(); err != nil {
			return fmt.Errorf("%w: %v", ErrQuery, err)
		}
	}
	if f, ok := unknownField(parsed); ok {
		return fmt.Errorf("%w: unknown field %q", ErrQuery, f)
	}
	return nil
}

// unknownField finds the first clause naming a field the mapping lacks.
func unknownField(q query.Query) (string, bool) {
	switch x := q.(type) {
	case *query.BooleanQuery:
		for _, sub := range []query.Query{x.Must, x.Should, x.MustNot} {
			if sub == nil {
				continue
			}
			if f, ok := unknownField(sub); ok {
				return f, true
			}
		}
		return "", false
	case *query.ConjunctionQuery:
		for _, sub := range x.Conjuncts {
			if f, ok := unknownField(sub); ok {
				return f, true
			}
		}
		return "", false
	case *query.DisjunctionQuery:
		for _, sub := range x.Disjuncts {
			if f, ok := unknownField(sub); ok {
				return f, true
			}
		}
		return "", false
	case query.FieldableQuery:
		if f := x.Field(); f != "" && !knownField(f) {
			return f, true
		}
	}
	return "", false
}

// knownField reports a field a query may name.
func knownField(f string) bool {
	if f == "time" || isKeyword(f) {
		return true
	}
	for _, names := range [][]string{textFields, numericFields} {
		for _, n := range names {
			if n == f {
				return true
			}
		}
	}
	return false
}

// KeywordField reports an exact-match field: a quoted value on it is the
// whole value, where on a text field a quoted phrase finds nothing.
func KeywordField(name string) bool { return isKeyword(name) }
