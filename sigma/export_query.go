package sigma

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// exportDetection writes a rule's queries (or-ed) as a Sigma detection
// under the log source they share, else under product: cordon.
func exportDetection(queries []string, p *Pipeline) (map[string]any, Logsource, error) {
	var ls *Logsource
	for _, s := range queries {
		q, err := evidence.Parse(s)
		if err != nil {
			return nil, Logsource{}, err
		}
		l, _ := logsourceOf(q, p)
		if ls != nil && *ls != l {
			return exportDetectionAs(queries, p, cordonLogsource)
		}
		ls = &l
	}
	if ls == nil {
		return nil, Logsource{}, fmt.Errorf("the rule has no query")
	}
	return exportDetectionAs(queries, p, *ls)
}

// exportDetectionAs writes the queries under the given log source.
func exportDetectionAs(queries []string, p *Pipeline, ls Logsource) (map[string]any, Logsource, error) {
	x := &queryExport{p: p, ls: ls, det: map[string]any{}}
	var conds []string
	for _, s := range queries {
		q, err := evidence.Parse(s)
		if err != nil {
			return nil, Logsource{}, err
		}
		if ls != cordonLogsource {
			_, q = logsourceOf(q, p)
		}
		c, err := x.cond(q)
		if err != nil {
			return nil, Logsource{}, fmt.Errorf("query %q: %w", s, err)
		}
		conds = append(conds, c)
	}
	x.det["condition"] = strings.Join(conds, " or ")
	return x.det, ls, nil
}

// queryExport writes one query's nodes as selections and a condition.
type queryExport struct {
	p   *Pipeline
	ls  Logsource
	det map[string]any
	n   int
}

func (x *queryExport) selection(items map[string]any) string {
	x.n++
	name := fmt.Sprintf("selection%d", x.n)
	x.det[name] = items
	return name
}

// cond returns the condition text of q, parenthesised unless a name.
func (x *queryExport) cond(q evidence.Query) (string, error) {
	switch q.Op() {
	case evidence.OpAnd, evidence.OpOr:
		if q.Op() == evidence.OpOr {
			if key, vals, ok := x.sameKey(q.Subs()); ok {
				return x.selection(map[string]any{key: vals}), nil
			}
		}
		var parts []string
		for _, s := range q.Subs() {
			c, err := x.cond(s)
			if err != nil {
				return "", err
			}
			parts = append(parts, c)
		}
		op := " and "
		if q.Op() == evidence.OpOr {
			op = " or "
		}
		return "(" + strings.Join(parts, op) + ")", nil
	case evidence.OpNot:
		c, err := x.cond(q.Subs()[0])
		if err != nil {
			return "", err
		}
		return "(not " + c + ")", nil
	}
	items, err := x.leaf(q)
	if err != nil {
		return "", err
	}
	return x.selection(items), nil
}

// sameKey reports or-ed leaves that are one Sigma item each under the
// same key: one item with a list of values says it.
func (x *queryExport) sameKey(qs []evidence.Query) (string, []any, bool) {
	key := ""
	var vals []any
	for _, q := range qs {
		items, err := x.leaf(q)
		if err != nil || len(items) != 1 {
			return "", nil, false
		}
		for k, v := range items {
			if key != "" && k != key || k == "" || strings.Contains(k, "|re") || strings.Contains(k, "|exists") {
				return "", nil, false
			}
			key = k
			vals = append(vals, v)
		}
	}
	return key, vals, key != ""
}

// wordChars are the characters of a word of cordon's analysed text; join
// are those that join two words into one (UAX #29: '.', ':', '\” between
// letters, ',' and ';' between digits).
const (
	wordChars = `\pL\pN_`
	joinChars = `.:',;`
)

// wordRegexp is a Sigma re finding a word of analysed text (cmdline, url,
// path, message) that the anchored regular expression inner matches as a
// whole: a word begins at the start or after a character that is neither a
// word's nor a joiner, or after a joiner that follows such a character;
// it ends alike.
func wordRegexp(inner string) string {
	left := `(?:^|[^` + wordChars + joinChars + `]|(?:^|[^` + wordChars + `])[` + joinChars + `])`
	right := `(?:$|[^` + wordChars + joinChars + `]|[` + joinChars + `](?:$|[^` + wordChars + `]))`
	return "(?i)" + left + "(?:" + inner + ")" + right
}

// literalRegexp reports whether re says only literal words and their
// alternatives: then it cannot match across a word's end, and wordRegexp
// finds exactly the words it matches.
func literalRegexp(re string) bool {
	t, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return false
	}
	var ok func(*syntax.Regexp) bool
	ok = func(r *syntax.Regexp) bool {
		switch r.Op {
		case syntax.OpLiteral:
			for _, c := range r.Rune {
				if !wordRune(c) {
					return false
				}
			}
			return true
		case syntax.OpCharClass:
			for i := 0; i+1 < len(r.Rune); i += 2 {
				for c := r.Rune[i]; c <= r.Rune[i+1] && c < 0x80; c++ {
					if !wordRune(c) {
						return false
					}
				}
			}
			return true
		case syntax.OpConcat, syntax.OpAlternate, syntax.OpCapture:
			for _, s := range r.Sub {
				if !ok(s) {
					return false
				}
			}
			return true
		case syntax.OpEmptyMatch:
			return true
		}
		return false
	}
	return ok(t)
}

// wordRune is a character a word of analysed text may hold.
func wordRune(c rune) bool {
	return c == '_' || c == '.' || c == ':' || c == '\'' || c == ',' || c == ';' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// oneWord matches a value that analyses into one word of plain ASCII.
var oneWord = regexp.MustCompile(`^[A-Za-z0-9_]+(?:[.:',;][A-Za-z0-9_]+)*$`)

// leaf writes one query leaf as the items of one selection (and-ed).
func (x *queryExport) leaf(q evidence.Query) (map[string]any, error) {
	name := q.Field()
	if name == "" {
		return nil, fmt.Errorf("a bare word (%s): Sigma's keywords search other fields than cordon's catch-all", q)
	}
	f, ok := evidence.LookupField(name)
	if !ok || !cordonField(name) {
		return nil, fmt.Errorf("field %q has no Sigma name", name)
	}
	sf, err := sigmaFieldFor(name, x.ls, x.p)
	if err != nil {
		return nil, err
	}
	switch f.Type() {
	case evidence.FieldText:
		// analysed text matches words: a regular expression bounded by
		// the words' ends says it
		var inner string
		switch q.Op() {
		case evidence.OpTerm:
			if !oneWord.MatchString(q.Value()) {
				return nil, fmt.Errorf("%s: only a single plain word on a text field is exported", q)
			}
			inner = regexp.QuoteMeta(q.Value())
		case evidence.OpRegexp:
			if !literalRegexp(q.Value()) || !q.Folded() && strings.ToLower(q.Value()) != q.Value() {
				return nil, fmt.Errorf("%s: a regular expression over words is exported only when it is words and alternatives", q)
			}
			inner = q.Value()
		default:
			return nil, fmt.Errorf("%s: a prefix or wildcard over words has no exact Sigma form", q)
		}
		return map[string]any{sf + "|re": wordRegexp(inner)}, nil
	case evidence.FieldNumber, evidence.FieldInteger:
		if q.Op() == evidence.OpWildcard && q.Value() == "*" {
			return map[string]any{sf + "|exists": true}, nil
		}
		if q.Op() == evidence.OpTerm {
			return map[string]any{sf: q.Value()}, nil
		}
		if q.Op() != evidence.OpNumRange {
			return nil, fmt.Errorf("%s: not a number or a range", q)
		}
		lo, hi, loIncl, hiIncl := q.Bounds()
		items := map[string]any{}
		if lo != nil {
			items[sf+"|"+map[bool]string{true: "gte", false: "gt"}[loIncl]] = *lo
		}
		if hi != nil {
			items[sf+"|"+map[bool]string{true: "lte", false: "lt"}[hiIncl]] = *hi
		}
		if len(items) == 0 {
			items[sf+"|exists"] = true
		}
		return items, nil
	case evidence.FieldExact, evidence.FieldList:
		// keyword fields are case-sensitive: cased says so
		mods := "|cased"
		if q.Folded() {
			mods = ""
		}
		switch q.Op() {
		case evidence.OpTerm:
			return map[string]any{sf + mods: escapeValue(q.Value())}, nil
		case evidence.OpWildcard:
			if q.Value() == "*" {
				return map[string]any{sf + "|exists": true}, nil
			}
			return map[string]any{sf + mods: strings.ReplaceAll(q.Value(), `\`, `\\`)}, nil
		case evidence.OpPrefix:
			return map[string]any{sf + "|startswith" + mods: escapeValue(q.Value())}, nil
		case evidence.OpRegexp:
			re := "^(?:" + q.Value() + ")$"
			if q.Folded() {
				re = "(?i)" + re
			}
			return map[string]any{sf + "|re": re}, nil
		}
	}
	return nil, fmt.Errorf("%s: no Sigma form", q)
}

// escapeValue keeps a value's *, ? and \ literal in Sigma.
func escapeValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`).Replace(s)
}
