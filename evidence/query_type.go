package evidence

import (
	"strings"
	"time"
)

// Op is what a Query node does.
type Op uint8

// The query nodes. A leaf names a field ("" is the catch-all field a bare
// word searches: message, command line, URL, path and raw text).
const (
	OpAll       Op = iota // every event
	OpNone                // no event
	OpTerm                // field equal to value (keyword), or any of its words (text)
	OpPrefix              // a value (or a word, on text) starting with value
	OpWildcard            // value with * and ? matched against a value or a word
	OpRegexp              // value is a regular expression over a whole value or word
	OpNumRange            // a numeric field within a range
	OpTimeRange           // time within [Since, Until)
	OpIDs                 // id is one of Values
	OpAnd                 // every sub-query
	OpOr                  // any sub-query
	OpNot                 // not the one sub-query
)

// Query is a typed query over events: what people type and rules carry is
// parsed into it (Parse), callers build it (Term, And, ...), and each store
// translates it once. The zero Query matches every event.
type Query struct {
	op     Op
	field  string
	value  string
	values []string
	fold   bool // case-insensitive (Term, Prefix, Wildcard, Regexp)
	lo, hi *float64
	loIncl bool
	hiIncl bool
	since  time.Time // OpTimeRange: inclusive unless sinceExcl; zero = open
	until  time.Time // OpTimeRange: exclusive unless untilIncl; zero = open
	// sinceExcl and untilIncl keep a range as it was written (time:>T,
	// time:<=T), so that it reads back so.
	sinceExcl, untilIncl bool
	subs                 []Query
}

// All matches every event.
func All() Query { return Query{} }

// None matches no event.
func None() Query { return Query{op: OpNone} }

// Term matches field equal to value: the whole value on an exact-match
// field, any of its words on a text field, a word anywhere when field is
// "". Host names are compared lowercased, as the index keeps them; a value
// on a numeric field is the range of that one number.
func Term(field, value string) Query {
	if f, ok := LookupField(field); ok && f.kind == numField {
		if n, ok := parseNumber(value); ok {
			return NumRange(field, &n, &n, true, true)
		}
	}
	if field == "dst_host" {
		value = lowerASCII(value)
	}
	return Query{op: OpTerm, field: field, value: value}
}

// Terms matches field equal to any of values.
func Terms(field string, values ...string) Query {
	qs := make([]Query, len(values))
	for i, v := range values {
		qs[i] = Term(field, v)
	}
	return Or(qs...)
}

// Prefix matches a value (a word, on text) that starts with value.
func Prefix(field, value string) Query {
	if field == "dst_host" {
		value = lowerASCII(value)
	}
	return Query{op: OpPrefix, field: field, value: value}
}

// Wildcard matches a value with * (any run) and ? (one character).
func Wildcard(field, pattern string) Query {
	if field == "dst_host" {
		pattern = lowerASCII(pattern)
	}
	return Query{op: OpWildcard, field: field, value: pattern}
}

// Regexp matches a whole value (a whole word, on text) against a regular
// expression (Go syntax, anchored at both ends).
func Regexp(field, re string) Query { return Query{op: OpRegexp, field: field, value: re} }

// Exists matches the events that have field at all.
func Exists(field string) Query { return Wildcard(field, "*") }

// NumRange matches a numeric field within [lo, hi] (each end open when
// nil, exclusive unless its incl flag is set).
func NumRange(field string, lo, hi *float64, loIncl, hiIncl bool) Query {
	return Query{op: OpNumRange, field: field, lo: lo, hi: hi, loIncl: loIncl, hiIncl: hiIncl}
}

// TimeRange matches events in [since, until); a zero bound is open.
func TimeRange(since, until time.Time) Query {
	if since.IsZero() && until.IsZero() {
		return All()
	}
	return Query{op: OpTimeRange, field: "time", since: since.UTC(), until: until.UTC()}
}

// Within matches events in [since, until], both ends included: the span
// of a finding or a related window.
func Within(since, until time.Time) Query {
	q := TimeRange(since, until)
	q.untilIncl = !until.IsZero()
	return q
}

// After matches events after t, t itself left out.
func After(t time.Time) Query {
	q := TimeRange(t, time.Time{})
	q.sinceExcl = true
	return q
}

// AtOrBefore matches events at t or before it.
func AtOrBefore(t time.Time) Query {
	q := TimeRange(time.Time{}, t)
	q.untilIncl = true
	return q
}

// IDs matches exactly the events with these ids; none matches nothing.
func IDs(ids ...string) Query {
	if len(ids) == 0 {
		return None()
	}
	return Query{op: OpIDs, field: "id", values: append([]string(nil), ids...)}
}

// Fold returns q matching regardless of case (a Term, Prefix, Wildcard or
// Regexp; text fields are lowercased anyway). Other queries are returned
// as they are.
func (q Query) Fold() Query {
	switch q.op {
	case OpTerm, OpPrefix, OpWildcard, OpRegexp:
		q.fold = true
	}
	return q
}

// And matches the events every query matches. All is left out and None
// wins; nested ands are flattened.
func And(qs ...Query) Query {
	var subs []Query
	for _, q := range qs {
		switch q.op {
		case OpAll:
			continue
		case OpNone:
			return None()
		case OpAnd:
			subs = append(subs, q.subs...)
		default:
			subs = append(subs, q)
		}
	}
	switch len(subs) {
	case 0:
		return All()
	case 1:
		return subs[0]
	}
	return Query{op: OpAnd, subs: subs}
}

// Or matches the events any query matches. None is left out and All
// wins; nested ors are flattened.
func Or(qs ...Query) Query {
	var subs []Query
	for _, q := range qs {
		switch q.op {
		case OpNone:
			continue
		case OpAll:
			return All()
		case OpOr:
			subs = append(subs, q.subs...)
		default:
			subs = append(subs, q)
		}
	}
	switch len(subs) {
	case 0:
		return None()
	case 1:
		return subs[0]
	}
	return Query{op: OpOr, subs: subs}
}

// Not matches the events q does not.
func Not(q Query) Query {
	switch q.op {
	case OpAll:
		return None()
	case OpNone:
		return All()
	case OpNot:
		return q.subs[0]
	}
	return Query{op: OpNot, subs: []Query{q}}
}

// Op returns what the node does.
func (q Query) Op() Op { return q.op }

// Field is the field a leaf names ("" for a bare word; "time" for a time
// range; "id" for an id set).
func (q Query) Field() string { return q.field }

// Value is a leaf's term, prefix, pattern or regular expression.
func (q Query) Value() string { return q.value }

// Values are an id set's ids.
func (q Query) Values() []string { return q.values }

// Folded reports a case-insensitive leaf.
func (q Query) Folded() bool { return q.fold }

// Subs are the sub-queries of And, Or and Not.
func (q Query) Subs() []Query { return q.subs }

// Span returns a time range's bounds as [since, until), zero open.
func (q Query) Span() (since, until time.Time) {
	since, until = q.since, q.until
	if q.sinceExcl {
		since = since.Add(time.Nanosecond)
	}
	if q.untilIncl {
		until = until.Add(time.Nanosecond)
	}
	return since, until
}

// IsAll reports a query that matches every event without asking.
func (q Query) IsAll() bool { return q.op == OpAll }

// Leaves calls fn with every leaf of q, depth first.
func (q Query) Leaves(fn func(Query)) {
	switch q.op {
	case OpAnd, OpOr, OpNot:
		for _, s := range q.subs {
			s.Leaves(fn)
		}
	default:
		fn(q)
	}
}

// Equal reports whether two queries read the same (their canonical text
// is equal).
func (q Query) Equal(o Query) bool { return q.String() == o.String() }

// MarshalText writes the canonical text, which Parse reads back.
func (q Query) MarshalText() ([]byte, error) { return []byte(q.String()), nil }

// UnmarshalText parses text written by MarshalText or by a person.
func (q *Query) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*q = p
	return nil
}

// mentions reports whether any leaf of q names field.
func (q Query) mentions(field string) bool {
	found := false
	q.Leaves(func(l Query) { found = found || l.field == field })
	return found
}

// HasField reports whether any leaf of q names one of fields.
func (q Query) HasField(fields ...string) bool {
	for _, f := range fields {
		if q.mentions(f) {
			return true
		}
	}
	return false
}

// ReadsText reports whether matching q reads an event's text, its message
// or its record as written (Event.Message, Event.Raw): a leaf on the
// message field, or one that searches the catch-all field (a bare word),
// does.
func (q Query) ReadsText() bool {
	reads := false
	q.Leaves(func(l Query) {
		switch l.op {
		case OpTerm, OpPrefix, OpWildcard, OpRegexp:
			reads = reads || l.field == "" || l.field == "_all" || l.field == "message"
		}
	})
	return reads
}

// isPlainID is an id that needs no quoting.
func isPlainID(id string) bool {
	return id != "" && strings.Trim(id, "0123456789abcdefABCDEF_-") == ""
}
