package evidence

import (
	"fmt"
	"strings"
	"unicode"
)

// Parse reads the query syntax people type and rules carry (docs/query.md):
// clauses field:value or bare words, joined by AND unless OR stands
// between them; NOT or a leading - excludes, a leading + is allowed and
// changes nothing; parentheses group, and field:(a OR b) groups values of
// one field. Values are words (with * and ? wildcards), "quoted values",
// /regular expressions/ (i after the closing slash: any case) and ranges
// (bytes_out:>1000, time:>="2026-07-21T10:00:00Z"). An empty query is
// every event. Errors wrap ErrQuery and say how to fix the query: an
// unknown field, a value that cannot match, an operator with nothing
// after it.
func Parse(text string) (Query, error) {
	if err := checkNesting(text); err != nil {
		return Query{}, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	p := &parser{src: text}
	p.space()
	if p.eof() {
		return All(), nil
	}
	q, err := p.or()
	if err != nil {
		return Query{}, fmt.Errorf("%w: %v", ErrQuery, err)
	}
	p.space()
	if !p.eof() {
		return Query{}, fmt.Errorf("%w: ) without ( at column %d", ErrQuery, p.pos+1)
	}
	return q, nil
}

// MustParse parses a query known to be valid (a constant in the code); it
// panics otherwise, at start-up, not in front of a responder.
func MustParse(text string) Query {
	q, err := Parse(text)
	if err != nil {
		panic(err)
	}
	return q
}

// MaxNesting bounds how deep a query nests: groups, and NOTs one inside
// another. No query a person writes comes near it; one that does is an
// error with its position, never a parser that recurses until the stack
// runs out.
const MaxNesting = 100

// checkNesting finds the first ( or NOT past MaxNesting levels, outside
// quotes and regexps, before anything recurses.
func checkNesting(text string) error {
	depth, nots := 0, 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\\':
			i++
		case c == '"' || c == '/' && (i == 0 || text[i-1] == ':' || isSpace(text[i-1]) || text[i-1] == '('):
			// a phrase or a regexp: skip to its end
			for i++; i < len(text) && text[i] != c; i++ {
				if text[i] == '\\' {
					i++
				}
			}
		case c == '(':
			if depth++; depth+nots > MaxNesting {
				return fmt.Errorf("( at column %d nests deeper than %d levels: write the query flatter", i+1, MaxNesting)
			}
		case c == ')':
			depth = max(depth-1, 0)
		case c == 'N' && strings.HasPrefix(text[i:], "NOT") && (i == 0 || isSpace(text[i-1]) || text[i-1] == '(') &&
			(i+3 == len(text) || isSpace(text[i+3]) || text[i+3] == '('):
			if nots++; depth+nots > MaxNesting {
				return fmt.Errorf("NOT at column %d nests deeper than %d levels: write the query flatter", i+1, MaxNesting)
			}
			i += 2
		case !isSpace(c):
			nots = 0 // a NOT applies to what follows it, not to the next clause
		}
	}
	return nil
}

type parser struct {
	src   string
	pos   int
	field string // inside field:( ... ), the field bare values take
	depth int
}

func (p *parser) eof() bool { return p.pos >= len(p.src) }

func (p *parser) space() {
	for !p.eof() && isSpace(p.src[p.pos]) {
		p.pos++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// operator returns the operator word at the cursor (AND, OR, NOT), if the
// next token is one: upper case, standing alone.
func (p *parser) operator() string {
	for _, op := range []string{"AND", "OR", "NOT"} {
		if strings.HasPrefix(p.src[p.pos:], op) {
			end := p.pos + len(op)
			if end == len(p.src) || isSpace(p.src[end]) || p.src[end] == '(' || p.src[end] == ')' {
				return op
			}
		}
	}
	return ""
}

// atEnd reports the end of a group: the input, or a ) closing one.
func (p *parser) atEnd() bool {
	return p.eof() || p.src[p.pos] == ')' && p.depth > 0
}

func (p *parser) or() (Query, error) {
	first, err := p.and()
	if err != nil {
		return Query{}, err
	}
	qs := []Query{first}
	for {
		p.space()
		if p.operator() != "OR" {
			return Or(qs...), nil
		}
		p.pos += 2
		p.space()
		if p.atEnd() {
			return Query{}, fmt.Errorf("OR with nothing after it: write a OR b")
		}
		q, err := p.and()
		if err != nil {
			return Query{}, err
		}
		qs = append(qs, q)
	}
}

func (p *parser) and() (Query, error) {
	p.space()
	if op := p.operator(); op == "AND" || op == "OR" {
		return Query{}, fmt.Errorf("%s with nothing before it: write a %s b", op, op)
	}
	var qs []Query
	for {
		p.space()
		if p.atEnd() || p.operator() == "OR" {
			break
		}
		if p.src[p.pos] == ')' {
			return Query{}, fmt.Errorf(") without ( at column %d", p.pos+1)
		}
		if p.operator() == "AND" {
			if len(qs) == 0 {
				return Query{}, fmt.Errorf("AND with nothing before it: write a AND b")
			}
			p.pos += 3
			p.space()
			if p.atEnd() || p.operator() == "OR" || p.operator() == "AND" {
				return Query{}, fmt.Errorf("AND with nothing after it: write a AND b")
			}
		}
		q, err := p.unary()
		if err != nil {
			return Query{}, err
		}
		qs = append(qs, q)
	}
	if len(qs) == 0 {
		return Query{}, fmt.Errorf("nothing to search for at column %d", p.pos+1)
	}
	return And(qs...), nil
}

func (p *parser) unary() (Query, error) {
	p.space()
	if p.operator() == "NOT" {
		p.pos += 3
		p.space()
		if op := p.operator(); p.atEnd() || op == "AND" || op == "OR" {
			return Query{}, fmt.Errorf("NOT with nothing after it: write NOT field:value")
		}
		q, err := p.unary()
		return Not(q), err
	}
	if c := p.src[p.pos]; c == '-' || c == '+' {
		p.pos++
		if p.eof() || isSpace(p.src[p.pos]) || p.src[p.pos] == ')' {
			what := "+ is not needed: clauses are required unless OR joins them"
			if c == '-' {
				what = "write -field:value to exclude"
			}
			return Query{}, fmt.Errorf("%c with nothing after it (%s)", c, what)
		}
		q, err := p.primary()
		if c == '-' {
			q = Not(q)
		}
		return q, err
	}
	return p.primary()
}

func (p *parser) primary() (Query, error) {
	if p.src[p.pos] == '(' {
		return p.group()
	}
	return p.clause()
}

// group reads ( ... ) at the cursor.
func (p *parser) group() (Query, error) {
	open := p.pos
	p.pos++
	p.depth++
	p.space()
	if p.eof() {
		return Query{}, fmt.Errorf("( at column %d without ): close it", open+1)
	}
	if p.src[p.pos] == ')' {
		return Query{}, fmt.Errorf("() holds nothing, at column %d", open+1)
	}
	q, err := p.or()
	if err != nil {
		return Query{}, err
	}
	p.space()
	if p.eof() {
		return Query{}, fmt.Errorf("( at column %d without ): close it", open+1)
	}
	p.pos++ // the )
	p.depth--
	return q, nil
}

// fieldName reads field: at the cursor, or returns "" leaving it be.
func (p *parser) fieldName() (string, bool) {
	i := p.pos
	if i >= len(p.src) || !(unicode.IsLetter(rune(p.src[i])) || p.src[i] == '_') {
		return "", false
	}
	for i < len(p.src) {
		c := p.src[i]
		if c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	if i < len(p.src) && p.src[i] == ':' {
		name := p.src[p.pos:i]
		p.pos = i + 1
		return name, true
	}
	return "", false
}

// clause reads one field:value or bare value.
func (p *parser) clause() (Query, error) {
	start := p.pos
	field, named := p.fieldName()
	if named && p.field != "" {
		return Query{}, fmt.Errorf("%s: inside %s:( ), write values only", field, p.field)
	}
	if !named {
		field = p.field
	}
	if named && (p.eof() || isSpace(p.src[p.pos]) || p.src[p.pos] == ')') {
		return Query{}, fmt.Errorf("%s: has no value: write %s:value (or %s:* for any)", field, field, field)
	}
	if named {
		if err := checkField(field); err != nil {
			return Query{}, err
		}
		if p.src[p.pos] == '(' {
			outer := p.field
			p.field = field
			q, err := p.group()
			p.field = outer
			return q, err
		}
	}
	v, err := p.value()
	if err != nil {
		return Query{}, err
	}
	v.field, v.text = field, p.src[start:p.pos]
	return v.query()
}

// rawValue is a value as written, before its field gives it a meaning.
type rawValue struct {
	field, text string
	kind        byte   // 'w' word, 'q' quoted, 'r' regexp, '<' range
	op          string // range operator
	value       string // unescaped
	wild        bool   // an unescaped * or ? in a word
	fold        bool   // /re/i
}

func (p *parser) value() (rawValue, error) {
	c := p.src[p.pos]
	switch {
	case c == '"':
		s, err := p.quoted()
		return rawValue{kind: 'q', value: s}, err
	case c == '/':
		return p.regexp()
	case c == '>' || c == '<':
		op := p.src[p.pos : p.pos+1]
		p.pos++
		if !p.eof() && p.src[p.pos] == '=' {
			op += "="
			p.pos++
		}
		if p.eof() || isSpace(p.src[p.pos]) {
			return rawValue{}, fmt.Errorf("%s with nothing after it: write field:%s10", op, op)
		}
		var s string
		var err error
		if p.src[p.pos] == '"' {
			s, err = p.quoted()
		} else {
			s, _ = p.word()
		}
		return rawValue{kind: '<', op: op, value: s}, err
	}
	s, wild := p.word()
	return rawValue{kind: 'w', value: s, wild: wild}, nil
}

// word reads up to a space or a bracket, unescaping; wild reports an
// unescaped * or ?. A wildcard's own escapes are kept (\* stays \*) so that
// the pattern can tell them apart.
func (p *parser) word() (s string, wild bool) {
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.pos]
		if isSpace(c) || c == '(' || c == ')' {
			break
		}
		if c == '\\' && p.pos+1 < len(p.src) {
			p.pos++
			n := p.src[p.pos]
			if n == '*' || n == '?' || n == '\\' {
				b.WriteByte('\\')
			}
			b.WriteByte(n)
			p.pos++
			continue
		}
		if c == '*' || c == '?' {
			wild = true
		}
		b.WriteByte(c)
		p.pos++
	}
	return b.String(), wild
}

func (p *parser) quoted() (string, error) {
	open := p.pos
	p.pos++
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.pos]
		switch {
		case c == '\\' && p.pos+1 < len(p.src):
			b.WriteByte(p.src[p.pos+1])
			p.pos += 2
			continue
		case c == '"':
			p.pos++
			return b.String(), nil
		}
		b.WriteByte(c)
		p.pos++
	}
	return "", fmt.Errorf(`" at column %d without a closing "`, open+1)
}

func (p *parser) regexp() (rawValue, error) {
	open := p.pos
	p.pos++
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.pos]
		if c == '\\' && p.pos+1 < len(p.src) {
			if p.src[p.pos+1] != '/' {
				b.WriteByte('\\')
			}
			b.WriteByte(p.src[p.pos+1])
			p.pos += 2
			continue
		}
		if c == '/' {
			p.pos++
			fold := false
			if !p.eof() && p.src[p.pos] == 'i' && (p.pos+1 == len(p.src) || isSpace(p.src[p.pos+1]) || p.src[p.pos+1] == ')') {
				fold = true
				p.pos++
			}
			return rawValue{kind: 'r', value: b.String(), fold: fold}, nil
		}
		b.WriteByte(c)
		p.pos++
	}
	return rawValue{}, fmt.Errorf("/ at column %d without a closing /: end the regular expression, or write \\/ for a slash", open+1)
}

// unescapeWild turns a word read with wildcards back into the literal it
// is when it has none.
func unescapeWild(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
