package sigma

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// cond is a parsed condition: and, or, not, a search identifier, or
// "1 of" / "all of" a pattern of identifiers (or them).
type cond struct {
	op   string // "and", "or", "not", "ref", "1of", "allof"
	subs []cond
	name string // ref: the identifier; 1of/allof: the pattern ("them" for all)
}

const pipeSyntax = "the pipe (count() by ..., near) is the old aggregation syntax, not supported; write a correlation rule"

type condToken struct {
	text string
	col  int // from 0, in the condition string
}

// lexCondition splits a condition into words and parentheses.
func lexCondition(s string) []condToken {
	var toks []condToken
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '(' || c == ')' || c == '|':
			toks = append(toks, condToken{text: string(c), col: i})
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \t\n\r()|", rune(s[j])) {
				j++
			}
			toks = append(toks, condToken{text: s[i:j], col: i})
			i = j
		}
	}
	return toks
}

type condParser struct {
	f    *refuser
	n    *yaml.Node
	toks []condToken
	pos  int
	d    *Detection
}

// parseCondition parses one condition string against the detection's
// search identifiers. Precedence, loosest first: or, and, not, "x of",
// parentheses.
func parseCondition(f *refuser, n *yaml.Node, d *Detection) (cond, *Refusal) {
	p := &condParser{f: f, n: n, toks: lexCondition(n.Value), d: d}
	if len(p.toks) == 0 {
		return cond{}, f.at(n, "empty condition")
	}
	c, ref := p.or()
	if ref != nil {
		return cond{}, ref
	}
	if p.pos < len(p.toks) {
		if t := p.toks[p.pos]; t.text == "|" {
			return cond{}, p.fail(t, pipeSyntax)
		}
		return cond{}, p.fail(p.toks[p.pos], "unexpected %q", p.toks[p.pos].text)
	}
	return c, nil
}

// fail places a refusal at a token: the condition's line, and its column
// plus the token's offset when the condition is written on one plain line.
func (p *condParser) fail(t condToken, format string, a ...any) *Refusal {
	r := p.f.at(p.n, "condition: "+format, a...)
	if p.n.Style == 0 && !strings.Contains(p.n.Value, "\n") {
		r.Col += t.col
	} else if p.n.Style == yaml.SingleQuotedStyle || p.n.Style == yaml.DoubleQuotedStyle {
		r.Col += t.col + 1
	}
	return r
}

func (p *condParser) peek() (condToken, bool) {
	if p.pos < len(p.toks) {
		return p.toks[p.pos], true
	}
	return condToken{}, false
}

func (p *condParser) keyword(word string) bool {
	t, ok := p.peek()
	if ok && strings.EqualFold(t.text, word) {
		p.pos++
		return true
	}
	return false
}

func (p *condParser) or() (cond, *Refusal) {
	c, ref := p.and()
	if ref != nil {
		return cond{}, ref
	}
	subs := []cond{c}
	for p.keyword("or") {
		c, ref := p.and()
		if ref != nil {
			return cond{}, ref
		}
		subs = append(subs, c)
	}
	if len(subs) == 1 {
		return c, nil
	}
	return cond{op: "or", subs: subs}, nil
}

func (p *condParser) and() (cond, *Refusal) {
	c, ref := p.not()
	if ref != nil {
		return cond{}, ref
	}
	subs := []cond{c}
	for p.keyword("and") {
		c, ref := p.not()
		if ref != nil {
			return cond{}, ref
		}
		subs = append(subs, c)
	}
	if len(subs) == 1 {
		return c, nil
	}
	return cond{op: "and", subs: subs}, nil
}

func (p *condParser) not() (cond, *Refusal) {
	if p.keyword("not") {
		c, ref := p.not()
		if ref != nil {
			return cond{}, ref
		}
		return cond{op: "not", subs: []cond{c}}, nil
	}
	return p.primary()
}

func (p *condParser) primary() (cond, *Refusal) {
	t, ok := p.peek()
	if !ok {
		return cond{}, p.fail(p.toks[len(p.toks)-1], "ends where an identifier is expected")
	}
	p.pos++
	switch lower := strings.ToLower(t.text); {
	case t.text == "(":
		c, ref := p.or()
		if ref != nil {
			return cond{}, ref
		}
		if !p.keyword(")") {
			return cond{}, p.fail(t, "( is not closed")
		}
		return c, nil
	case t.text == "|":
		return cond{}, p.fail(t, pipeSyntax)
	case lower == "1" || lower == "all":
		if !p.keyword("of") {
			return cond{}, p.fail(t, "%q must be followed by of", t.text)
		}
		target, ok := p.peek()
		if !ok || target.text == "(" || target.text == ")" || target.text == "|" {
			return cond{}, p.fail(t, "%s of needs them or an identifier pattern", t.text)
		}
		p.pos++
		op := "1of"
		if lower == "all" {
			op = "allof"
		}
		name := target.text
		if strings.EqualFold(name, "them") {
			name = "them"
		} else if len(p.d.match(name)) == 0 {
			return cond{}, p.fail(target, "%s of %s: no search identifier matches %q", t.text, name, name)
		}
		return cond{op: op, name: name}, nil
	case t.text == ")":
		return cond{}, p.fail(t, "unexpected )")
	case lower == "and" || lower == "or" || lower == "of" || lower == "not":
		return cond{}, p.fail(t, "unexpected %q", t.text)
	}
	if _, ok := p.d.Selections[t.text]; !ok {
		if strings.Contains(t.text, "*") {
			return cond{}, p.fail(t, "a pattern (%s) needs 1 of or all of", t.text)
		}
		return cond{}, p.fail(t, "no search identifier %q", t.text)
	}
	return cond{op: "ref", name: t.text}, nil
}

// match returns the search identifiers a pattern names, in file order:
// "them" is every one not starting with an underscore.
func (d *Detection) match(pattern string) []string {
	var out []string
	for _, n := range d.Names {
		if pattern == "them" {
			if !strings.HasPrefix(n, "_") {
				out = append(out, n)
			}
			continue
		}
		if globMatch(pattern, n) {
			out = append(out, n)
		}
	}
	return out
}

// globMatch matches a search-identifier pattern (* any run) against a name.
func globMatch(pattern, name string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == name
	}
	if !strings.HasPrefix(name, parts[0]) {
		return false
	}
	name = name[len(parts[0]):]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(name, mid)
		if i < 0 {
			return false
		}
		name = name[i+len(mid):]
	}
	return strings.HasSuffix(name, parts[len(parts)-1])
}
