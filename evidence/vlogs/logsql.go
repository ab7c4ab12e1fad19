package vlogs

import (
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cordon-ir/cordon/evidence"
)

// Every value that reaches LogsQL goes through quote (a Go string literal,
// which is how LogsQL decodes a double-quoted string); field names are
// cordon's own. Nothing typed by a person or read from evidence is
// written into a query any other way.
func quote(s string) string { return strconv.Quote(s) }

// never matches no record: a column cordon never writes, non-empty.
const never = `cordon_never:*`

// filter translates a typed query into a LogsQL filter; the query has
// passed Check.
func filter(q evidence.Query) (string, error) {
	switch q.Op() {
	case evidence.OpAll:
		return "*", nil
	case evidence.OpNone:
		return never, nil
	case evidence.OpAnd, evidence.OpOr:
		sep := " AND "
		if q.Op() == evidence.OpOr {
			sep = " OR "
		}
		parts := make([]string, len(q.Subs()))
		for i, s := range q.Subs() {
			p, err := filter(s)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return "(" + strings.Join(parts, sep) + ")", nil
	case evidence.OpNot:
		p, err := filter(q.Subs()[0])
		if err != nil {
			return "", err
		}
		return "NOT " + p, nil
	case evidence.OpIDs:
		vs := make([]string, len(q.Values()))
		for i, id := range q.Values() {
			vs[i] = quote(id)
		}
		return "id:in(" + strings.Join(vs, ",") + ")", nil
	case evidence.OpTimeRange:
		since, until := q.Span()
		return timeFilter(since, until), nil
	case evidence.OpNumRange:
		return numRange(q)
	}
	return leaf(q)
}

// timeFilter is [since, until), zero bounds open.
func timeFilter(since, until time.Time) string {
	switch {
	case since.IsZero() && until.IsZero():
		return "*"
	case until.IsZero():
		return "_time:>=" + stamp(since)
	case since.IsZero():
		return "_time:<" + stamp(until)
	}
	return "_time:[" + stamp(since) + ", " + stamp(until) + ")"
}

// stamp writes t for a _time filter, clamped to the times VictoriaLogs
// stores (a range may run from year 1 to 9999).
func stamp(t time.Time) string {
	lo, hi := time.Unix(0, math.MinInt64+1), time.Unix(0, math.MaxInt64-1)
	if t.Before(lo) {
		t = lo
	}
	if t.After(hi) {
		t = hi
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func numRange(q evidence.Query) (string, error) {
	f, _ := evidence.LookupField(q.Field())
	if f.Type() != evidence.FieldNumber {
		return never, nil // numbers are ranged on numeric fields only, as the index has it
	}
	lo, hi, loIncl, hiIncl := q.Bounds()
	parts := []string{q.Field() + ":*"}
	for _, b := range []struct {
		v    *float64
		incl bool
		op   string
	}{{lo, loIncl, ">"}, {hi, hiIncl, "<"}} {
		if b.v == nil {
			continue
		}
		if math.IsNaN(*b.v) {
			return never, nil
		}
		op := b.op
		if b.incl {
			op += "="
		}
		parts = append(parts, q.Field()+":"+op+strconv.FormatFloat(*b.v, 'f', -1, 64))
	}
	return "(" + strings.Join(parts, " AND ") + ")", nil
}

// leaf translates a term, prefix, wildcard or regexp on one field.
func leaf(q evidence.Query) (string, error) {
	f, ok := evidence.LookupField(q.Field())
	if !ok {
		return "", fmt.Errorf("%w: unknown field %q", evidence.ErrQuery, q.Field())
	}
	switch f.Type() {
	case evidence.FieldText:
		return textLeaf(q)
	case evidence.FieldNumber:
		if q.Op() == evidence.OpWildcard && q.Value() == "*" {
			return q.Field() + ":*", nil // bytes_out:* is any number
		}
		return never, nil
	case evidence.FieldList:
		return lineLeaf(q, q.Field())
	case evidence.FieldInteger:
		if q.Op() == evidence.OpTerm && !q.Folded() {
			if n, err := strconv.ParseInt(q.Value(), 10, 64); err != nil || strconv.FormatInt(n, 10) != q.Value() || n == 0 {
				return never, nil // the index holds canonical decimals of non-zero numbers
			}
		}
	}
	// one exact value
	col := q.Field()
	switch {
	case q.Op() == evidence.OpTerm && !q.Folded():
		return col + ":=" + quote(q.Value()), nil
	case q.Op() == evidence.OpPrefix && !q.Folded() && q.Value() != "":
		return col + ":=" + quote(q.Value()) + "*", nil
	}
	return "(" + col + ":* AND " + col + ":~" + quote("^(?:"+q.Pattern()+")$") + ")", nil
}

// textLeaf matches a word of a text field: any word of the value for a
// term, else a word the pattern matches whole. A bare word looks in every
// text column.
func textLeaf(q evidence.Query) (string, error) {
	cols := []string{column(q.Field())}
	if q.Field() == "" {
		cols = textColumns
	}
	var ors []string
	if q.Op() == evidence.OpTerm {
		ws := evidence.QueryWords(q.Value())
		if len(ws) == 0 {
			return never, nil // the index finds nothing for no word
		}
		for _, w := range ws {
			for _, c := range cols {
				ors = append(ors, wordFilter(c, w))
			}
		}
	} else {
		for _, c := range cols {
			l, err := lineLeaf(q, c)
			if err != nil {
				return "", err
			}
			ors = append(ors, l)
		}
	}
	if len(ors) == 1 {
		return ors[0], nil
	}
	return "(" + strings.Join(ors, " OR ") + ")", nil
}

// wordFilter matches a column holding word w on a line of its own: the
// phrase filter finds it fast (VictoriaLogs' bloom filters), the regexp
// makes it exact (the phrase alone would find "httpbin.org" in
// "x.httpbin.org").
func wordFilter(col, w string) string {
	exact := col + ":~" + quote(`(?m)^`+regexp.QuoteMeta(w)+`$`)
	if !strings.ContainsFunc(w, isTokenRune) {
		return exact
	}
	return "(" + col + ":" + quote(w) + " AND " + exact + ")"
}

// isTokenRune is what VictoriaLogs counts as part of a word.
func isTokenRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// lineLeaf matches a column of values one per line (a list, the words of
// a text) where one line matches the leaf's pattern whole. The pattern is
// rewritten so that it cannot match across a line break.
func lineLeaf(q evidence.Query, col string) (string, error) {
	re, err := oneLine(q.Pattern())
	if err != nil {
		return "", fmt.Errorf("%w: %v", evidence.ErrQuery, err)
	}
	return "(" + col + ":* AND " + col + ":~" + quote("(?m)^(?:"+re+")$") + ")", nil
}

// oneLine rewrites a regular expression so that nothing in it matches a
// line break: . and every class lose \n, and the text anchors become line
// anchors under the (?m) it is used with.
func oneLine(re string) (string, error) {
	rx, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", err
	}
	var walk func(*syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		switch r.Op {
		case syntax.OpAnyChar:
			r.Op = syntax.OpAnyCharNotNL
		case syntax.OpCharClass:
			r.Rune = withoutNL(r.Rune)
		case syntax.OpBeginText:
			r.Op = syntax.OpBeginLine
		case syntax.OpEndText:
			r.Op = syntax.OpEndLine
		}
		for _, s := range r.Sub {
			walk(s)
		}
	}
	walk(rx)
	return rx.String(), nil
}

// withoutNL takes \n out of a class's ranges.
func withoutNL(ranges []rune) []rune {
	var out []rune
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		if lo <= '\n' && '\n' <= hi {
			if lo < '\n' {
				out = append(out, lo, '\n'-1)
			}
			if hi > '\n' {
				out = append(out, '\n'+1, hi)
			}
			continue
		}
		out = append(out, lo, hi)
	}
	if len(out) == 0 {
		out = []rune{0x10FFFF, 0x10FFFF} // was only \n: a rune no word holds
	}
	return out
}
