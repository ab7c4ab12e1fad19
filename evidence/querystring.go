package evidence

import (
	"strings"
	"time"
)

// Every query string cordon writes for the store is built here, so that a
// value from the evidence is escaped the same way wherever it lands in a
// query, and the clause syntax the parser reads is split in one place.

// Term returns a query-string clause matching field exactly equal to value,
// escaped so that spaces, colons and quotes in evidence (an agent name, a
// host) cannot change the query's meaning, and left readable otherwise
// (agent:agent-7). It escapes rather than quotes: a quoted value is a phrase
// query, which finds nothing in the keyword fields (they keep no term
// positions).
func Term(field, value string) string {
	var b strings.Builder
	b.Grow(len(field) + 1 + len(value) + 4)
	b.WriteString(field)
	b.WriteByte(':')
	for i, r := range value {
		if strings.ContainsRune(escapeAlways, r) || i == 0 && strings.ContainsRune(escapeFirst, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// escapeAlways end or change a term anywhere in it; escapeFirst only at
// its start (operators, a range, a regexp).
const (
	escapeAlways = " \t:^~\"\\"
	escapeFirst  = "+-=<>!/"
)

// Within returns the required clauses of a closed time range, in the
// query-string syntax the timeline and the rules share.
func Within(since, until time.Time) string {
	f := func(t time.Time) string { return `"` + t.UTC().Format(time.RFC3339Nano) + `"` }
	return "+time:>=" + f(since) + " +time:<=" + f(until)
}

// Must returns Term prefixed with "+": the clause a filter adds.
func Must(field, value string) string { return "+" + Term(field, value) }

// Not returns Term prefixed with "-": a clause that excludes the value.
func Not(field, value string) string { return "-" + Term(field, value) }

// IDQuery finds exactly the events with these ids: one regular expression
// on the id field when every id is plain (hex digits, dash, underscore),
// else one optional clause per id.
func IDQuery(ids []string) string {
	plain := len(ids) > 0
	for _, id := range ids {
		plain = plain && id != "" && strings.Trim(id, "0123456789abcdefABCDEF_-") == ""
	}
	if plain {
		return "+id:/(" + strings.Join(ids, "|") + ")/"
	}
	terms := make([]string, len(ids))
	for i, id := range ids {
		terms[i] = Term("id", id)
	}
	return strings.Join(terms, " ")
}

// Combine intersects a filter (required clauses only, as Must builds them)
// with a search typed by a person. Bleve's query strings have no grouping,
// so the intersection is exact when the search has a required clause or a
// single optional one; a search of several optional words ("curl nohup",
// any of them) can only be narrowed to all of them, and anded reports it.
func Combine(filter, search string) (q string, anded bool) {
	filter, search = strings.TrimSpace(filter), strings.TrimSpace(search)
	if filter == "" || search == "" {
		return filter + search, false
	}
	clauses := Clauses(search)
	optional := 0
	for _, c := range clauses {
		switch c[0] {
		case '+':
			return filter + " " + search, false
		case '-':
		default:
			optional++
		}
	}
	for i, c := range clauses {
		if c[0] != '-' {
			clauses[i] = "+" + c
		}
	}
	return filter + " " + strings.Join(clauses, " "), optional > 1
}

// Clauses splits a query string into its top-level clauses, keeping quoted
// phrases and escaped spaces inside their clause.
func Clauses(q string) []string {
	var out []string
	var cur strings.Builder
	inQuote := false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\\' && i+1 < len(q):
			cur.WriteByte(c)
			cur.WriteByte(q[i+1])
			i++
			continue
		case c == '"':
			inQuote = !inQuote
		case !inQuote && (c == ' ' || c == '\t' || c == '\n'):
			flush()
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return out
}

// ClauseField is the field a clause names ("" for a bare word, a phrase or
// a regexp); a leading + or - is not part of it.
func ClauseField(clause string) string {
	body := clause
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '\\':
			i++
		case ':':
			return body[:i]
		case '"', '/':
			return ""
		}
	}
	return ""
}

// AddClause appends a clause to a filter unless the filter already has it.
func AddClause(filter, clause string) string {
	for _, c := range Clauses(filter) {
		if c == clause {
			return filter
		}
	}
	return strings.TrimSpace(filter + " " + clause)
}
