package evidence

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// String writes the canonical text of q: what Parse reads back into a query
// of the same meaning, and what the console shows as how a query was read.
// Every operator is spelled out (AND, OR, NOT) and every group that binds
// looser than its place is in parentheses.
func (q Query) String() string {
	var b strings.Builder
	q.write(&b, 0)
	return b.String()
}

// precedence of a node as written: OR binds loosest, then AND, then NOT
// and the leaves.
func (q Query) precedence() int {
	switch q.op {
	case OpOr:
		if _, ok := q.sameFieldTerms(); ok {
			return 3
		}
		return 1
	case OpAnd:
		return 2
	case OpNumRange:
		if q.lo != nil && q.hi != nil && !q.isEquality() {
			return 2 // written as two clauses joined by AND
		}
	case OpTimeRange:
		if !q.since.IsZero() && !q.until.IsZero() {
			return 2
		}
	}
	return 3
}

// write writes q, in parentheses when it binds looser than min.
func (q Query) write(b *strings.Builder, min int) {
	if q.precedence() < min {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch q.op {
	case OpAll:
		b.WriteString("*")
	case OpNone:
		b.WriteString("NOT *")
	case OpAnd:
		for i, s := range q.subs {
			if i > 0 {
				b.WriteString(" AND ")
			}
			s.write(b, 2)
		}
	case OpOr:
		if field, ok := q.sameFieldTerms(); ok {
			vals := make([]string, len(q.subs))
			for i, s := range q.subs {
				vals[i] = s.value
			}
			writeGroup(b, field, vals)
			return
		}
		for i, s := range q.subs {
			if i > 0 {
				b.WriteString(" OR ")
			}
			s.write(b, 3) // an AND inside an OR is bracketed, for the reader
		}
	case OpNot:
		b.WriteString("NOT ")
		q.subs[0].write(b, 3)
	case OpIDs:
		if len(q.values) == 1 {
			writeField(b, "id")
			b.WriteString(termText("id", q.values[0]))
			return
		}
		writeGroup(b, "id", q.values)
	default:
		q.writeLeaf(b)
	}
}

// sameFieldTerms reports an OR of plain terms on one named field, which
// is written as field:(a OR b).
func (q Query) sameFieldTerms() (string, bool) {
	if q.op != OpOr || len(q.subs) < 2 {
		return "", false
	}
	f := q.subs[0].field
	for _, s := range q.subs {
		if s.op != OpTerm || s.fold || s.field != f || f == "" {
			return "", false
		}
	}
	return f, true
}

func writeGroup(b *strings.Builder, field string, vals []string) {
	writeField(b, field)
	b.WriteByte('(')
	for i, v := range vals {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(termText(field, v))
	}
	b.WriteByte(')')
}

func writeField(b *strings.Builder, field string) {
	if field != "" {
		b.WriteString(field)
		b.WriteByte(':')
	}
}

func (q Query) writeLeaf(b *strings.Builder) {
	switch q.op {
	case OpTerm:
		writeField(b, q.field)
		if q.fold {
			writeRegexp(b, regexp.QuoteMeta(q.value), true)
			return
		}
		b.WriteString(termText(q.field, q.value))
	case OpPrefix:
		writeField(b, q.field)
		if q.fold {
			writeRegexp(b, regexp.QuoteMeta(q.value)+".*", true)
			return
		}
		b.WriteString(escapeValue(q.value, escapeAlways+"*?"))
		b.WriteByte('*')
	case OpWildcard:
		writeField(b, q.field)
		if q.fold {
			writeRegexp(b, wildcardRegexp(q.value), true)
			return
		}
		b.WriteString(escapePattern(q.value))
	case OpRegexp:
		writeField(b, q.field)
		writeRegexp(b, q.value, q.fold)
	case OpNumRange:
		if q.isEquality() {
			writeField(b, q.field)
			b.WriteString(formatNumber(*q.lo))
			return
		}
		if q.lo != nil {
			writeField(b, q.field)
			b.WriteString(map[bool]string{true: ">=", false: ">"}[q.loIncl])
			b.WriteString(formatNumber(*q.lo))
		}
		if q.lo != nil && q.hi != nil {
			b.WriteString(" AND ")
		}
		if q.hi != nil {
			writeField(b, q.field)
			b.WriteString(map[bool]string{true: "<=", false: "<"}[q.hiIncl])
			b.WriteString(formatNumber(*q.hi))
		}
	case OpTimeRange:
		if !q.since.IsZero() {
			b.WriteString(map[bool]string{true: `time:>"`, false: `time:>="`}[q.sinceExcl] + q.since.Format(time.RFC3339Nano) + `"`)
		}
		if !q.since.IsZero() && !q.until.IsZero() {
			b.WriteString(" AND ")
		}
		if !q.until.IsZero() {
			b.WriteString(map[bool]string{true: `time:<="`, false: `time:<"`}[q.untilIncl] + q.until.Format(time.RFC3339Nano) + `"`)
		}
	}
}

func (q Query) isEquality() bool {
	return q.lo != nil && q.hi != nil && *q.lo == *q.hi && q.loIncl && q.hiIncl
}

func writeRegexp(b *strings.Builder, re string, fold bool) {
	b.WriteByte('/')
	for i := 0; i < len(re); i++ {
		if re[i] == '\\' && i+1 < len(re) {
			b.WriteByte(re[i])
			b.WriteByte(re[i+1])
			i++
			continue
		}
		if re[i] == '/' {
			b.WriteByte('\\')
		}
		b.WriteByte(re[i])
	}
	b.WriteByte('/')
	if fold {
		b.WriteByte('i')
	}
}

// Characters that end or change a value anywhere in it, and at its start
// only (a sign, a range, a regexp).
const (
	escapeAlways = " \t\n\r:\"\\()"
	escapeFirst  = "+-=<>/"
)

// termText writes an exact value: quoted when it holds spaces and the
// field is exact-match (a quoted value is the whole value there), else
// with its special characters escaped.
func termText(field, v string) string {
	if v == "" {
		return `""`
	}
	if strings.ContainsAny(v, " \t") && KeywordField(field) {
		return quoteValue(v)
	}
	return escapeValue(v, escapeAlways+"*?")
}

// quoteValue quotes v as the parser reads a quoted value back: a backslash
// before " and \, every other byte as it is (a Go quote would write \x80
// for a byte that is not UTF-8, which reads back as "x80").
func quoteValue(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	b.WriteByte('"')
	return b.String()
}

func escapeValue(v, always string) string {
	var b strings.Builder
	if v == "AND" || v == "OR" || v == "NOT" {
		b.WriteByte('\\')
	}
	for i := 0; i < len(v); i++ { // bytes: a value need not be UTF-8
		if c := v[i]; strings.IndexByte(always, c) >= 0 || i == 0 && strings.IndexByte(escapeFirst, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func parseNumber(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// escapePattern writes a wildcard pattern, whose own escapes (\* for a
// star) are kept as they are.
func escapePattern(w string) string {
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c == '\\' && i+1 < len(w) {
			b.WriteByte(c)
			b.WriteByte(w[i+1])
			i++
			continue
		}
		if strings.IndexByte(escapeAlways, c) >= 0 || i == 0 && strings.IndexByte(escapeFirst, c) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// wildcardRegexp turns a wildcard pattern into the regexp it means: * any
// run, ? one character, \x the character x.
func wildcardRegexp(w string) string {
	var b strings.Builder
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c == '\\' && i+1 < len(w):
			b.WriteString(regexp.QuoteMeta(w[i+1 : i+2]))
			i++
		case c == '*':
			b.WriteString(".*")
		case c == '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(w[i : i+1]))
		}
	}
	return b.String()
}
