package evidence

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Fields lists every field a query may name, sorted.
func Fields() []string {
	var out []string
	for _, f := range keywordFields {
		out = append(out, f.name)
	}
	out = append(out, textFields...)
	out = append(out, numericFields...)
	out = append(out, "time")
	sort.Strings(out)
	return out
}

// checkField refuses a field the index does not have, naming the one
// meant when it is a matter of case or a typo: Bleve would accept it and
// find nothing.
func checkField(name string) error {
	if knownField(name) {
		return nil
	}
	if near := nearestField(name); near != "" {
		return fmt.Errorf("unknown field %q: did you mean %s? (fields are lower case)", name, near)
	}
	return fmt.Errorf("unknown field %q (fields: %s); to search for the word, escape the colon: %s", name, strings.Join(Fields(), ", "), strings.Replace(name, ":", `\:`, 1)+`\:`)
}

// nearestField is the known field name equal to name but for case, or
// one edit away, or "" if none.
func nearestField(name string) string {
	for _, f := range Fields() {
		if strings.EqualFold(f, name) {
			return f
		}
	}
	for _, f := range Fields() {
		if EditDistance(strings.ToLower(name), f) <= 1 || len(name) > 3 && strings.HasPrefix(f, strings.ToLower(name)) {
			return f
		}
	}
	return ""
}

// EditDistance is how many single-byte insertions, deletions and
// substitutions turn a into b: how near a typed name is to a known one
// (a query's field, a command's flag).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// lowercaseFields are enumerations: they hold values cordon itself
// writes, all in lower case. A value typed there is matched regardless
// of case (decision:DENY finds what the tables show as DENY): this is the
// one place that says so, for every store.
var lowercaseFields = []string{"source", "kind", "attributed_via", "decision", "format", "severity"}

// enumeration reports a field of lowercaseFields.
func enumeration(field string) bool { return slices.Contains(lowercaseFields, field) }

// query gives a value read by the parser its meaning on its field.
func (v rawValue) query() (Query, error) {
	f, _ := LookupField(v.field)
	name := v.field
	if name == "" {
		name = "a bare word"
	}
	switch v.kind {
	case '<':
		return v.rangeQuery(f)
	case 'r':
		if _, err := regexp.Compile(v.value); err != nil {
			return Query{}, fmt.Errorf("%s: bad regular expression: %v", v.text, err)
		}
		if f.kind == numField || f.kind == timeField {
			return Query{}, fmt.Errorf("%s: %s is a %s; write a range such as %s", v.text, v.field, kindName(f.kind), rangeExample(v.field))
		}
		q := Regexp(v.field, v.value)
		// Words are indexed lower case, and enumerations hold lower-case
		// values: a capital in a pattern there could never match, so it
		// means either case.
		if v.fold || (f.kind == textField || enumeration(v.field)) && hasUpperLiteral(v.value) {
			q = q.Fold()
		}
		return q, nil
	}
	if v.kind == 'w' && v.value == "*" {
		if v.field == "" {
			return All(), nil
		}
		return Exists(v.field), nil
	}
	switch f.kind {
	case numField:
		n, ok := parseNumber(unescapeWild(v.value))
		if v.wild || !ok {
			return Query{}, fmt.Errorf("%s: %s is a number; write %s:1000 or a range such as %s", v.text, v.field, v.field, rangeExample(v.field))
		}
		return NumRange(v.field, &n, &n, true, true), nil
	case timeField:
		return Query{}, fmt.Errorf("%s: time takes a range: time:>=\"2026-07-21T10:00:00Z\" AND time:<\"2026-07-21T11:00:00Z\"", v.text)
	}
	if v.kind == 'w' && v.wild {
		pattern := v.value
		if f.kind == textField || enumeration(v.field) {
			pattern = strings.ToLower(pattern) // words and enumerations are lower case
		}
		if strings.HasSuffix(pattern, "*") && !strings.ContainsAny(strings.TrimSuffix(pattern, "*"), `*?\`) {
			return Prefix(v.field, strings.TrimSuffix(pattern, "*")), nil
		}
		return Wildcard(v.field, pattern), nil
	}
	value := v.value
	if v.kind == 'w' {
		value = unescapeWild(value)
	}
	switch f.kind {
	case textField:
		toks := newAnalyzer().tokens(value)
		switch {
		case len(toks) == 0:
			return Query{}, fmt.Errorf("%s: %q holds no word to search for (words are letters and digits)", v.text, value)
		case v.kind == 'q' && len(toks) > 1:
			return Query{}, fmt.Errorf("%s: a quoted phrase finds nothing here (the index keeps no word positions); write %s", v.text, allWords(v.field, toks))
		}
	case intField:
		if n, ok := parseNumber(value); !ok || formatNumber(n) != value || strings.Contains(value, ".") {
			return Query{}, fmt.Errorf("%s: %s is a whole number; write %s:443", v.text, v.field, v.field)
		}
	case kwField, listField:
		if enumeration(v.field) {
			value = strings.ToLower(value)
		}
	}
	return Term(v.field, value), nil
}

func allWords(field string, toks []string) string {
	qs := make([]Query, len(toks))
	for i, t := range toks {
		qs[i] = Term(field, t)
	}
	return And(qs...).String()
}

func (v rawValue) rangeQuery(f Field) (Query, error) {
	switch f.kind {
	case numField:
		n, ok := parseNumber(v.value)
		if !ok {
			return Query{}, fmt.Errorf("%s: %q is not a number", v.text, v.value)
		}
		switch v.op {
		case ">":
			return NumRange(v.field, &n, nil, false, false), nil
		case ">=":
			return NumRange(v.field, &n, nil, true, false), nil
		case "<":
			return NumRange(v.field, nil, &n, false, false), nil
		}
		return NumRange(v.field, nil, &n, false, true), nil
	case timeField:
		t, err := parseTime(v.value)
		if err != nil {
			return Query{}, fmt.Errorf("%s: %v", v.text, err)
		}
		switch v.op {
		case ">":
			return After(t), nil
		case ">=":
			return TimeRange(t, time.Time{}), nil
		case "<":
			return TimeRange(time.Time{}, t), nil
		}
		return AtOrBefore(t), nil
	}
	if v.field == "" {
		return Query{}, fmt.Errorf("%s: a range needs a field: %s or %s", v.text, rangeExample("bytes_out"), rangeExample("time"))
	}
	return Query{}, fmt.Errorf("%s: %s is %s, not a number; ranges work on bytes_out, bytes_in, duration_ms and time", v.text, v.field, kindName(f.kind))
}

func kindName(k fieldKind) string {
	switch k {
	case numField:
		return "number"
	case timeField:
		return "time"
	case textField:
		return "text"
	}
	return "exact-match"
}

func rangeExample(field string) string {
	if field == "time" {
		return `time:>="2026-07-21T10:00:00Z"`
	}
	return field + ":>1000"
}

// parseTime reads a time bound: RFC 3339, with or without fractions, or a
// date alone (its midnight, UTC).
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: write 2026-07-21T10:00:00Z", s)
}

// hasUpperLiteral reports an upper-case letter in a pattern that is not
// part of an escape (\D, \S, \W).
func hasUpperLiteral(re string) bool {
	for i := 0; i < len(re); i++ {
		if re[i] == '\\' {
			i++
			continue
		}
		if re[i] >= 'A' && re[i] <= 'Z' {
			return true
		}
	}
	return false
}

// ValidateQuery checks a query the way Search would read it, without a
// store, so that saved queries (playbooks, config) are checked when they
// are loaded rather than when a responder first runs them. Errors wrap
// ErrQuery.
func ValidateQuery(text string) error {
	_, err := Parse(text)
	return err
}

// knownField reports a field a query may name.
func knownField(f string) bool {
	if f == "time" || isKeyword(f) {
		return true
	}
	return slices.Contains(textFields, f) || slices.Contains(numericFields, f)
}

// KeywordField reports an exact-match field: a quoted value on it is the
// whole value, where on a text field a quoted phrase finds nothing.
func KeywordField(name string) bool { return isKeyword(name) }

// check refuses a query built in code that names a field the index lacks
// or holds a bad regular expression, which the index would answer with
// nothing: Parse refuses both in what people type. Errors wrap ErrQuery.
func (q Query) check() error {
	var err error
	q.Leaves(func(l Query) {
		if err != nil {
			return
		}
		switch l.op {
		case OpAll, OpNone, OpIDs, OpTimeRange:
			return
		case OpRegexp:
			if _, e := regexp.Compile(l.value); e != nil {
				err = fmt.Errorf("%w: %s: %v", ErrQuery, l, e)
				return
			}
		}
		if l.op == OpRegexp || l.op == OpWildcard {
			if e := checkPattern(l.op, l.value); e != nil {
				err = fmt.Errorf("%w: %.80s: %v", ErrQuery, l.String(), e)
				return
			}
		}
		if l.field != "" && !knownField(l.field) {
			err = fmt.Errorf("%w: %v", ErrQuery, checkField(l.field))
		}
	})
	return err
}
