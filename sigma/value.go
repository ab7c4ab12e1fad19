package sigma

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
)

// tok is one piece of a Sigma string value: a literal run, a wildcard
// (* any run, ? one character) or the class of dashes windash allows.
type tok struct {
	kind byte // 'l', '*', '?', '-'
	lit  string
}

type pattern []tok

// dashes are the characters windash makes interchangeable.
const dashes = "-/–—―"

// parseWildcards reads a Sigma string: * and ? are wildcards; a backslash
// escapes *, ? and itself, and is itself anywhere else.
func parseWildcards(s string) pattern {
	var p pattern
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			p = append(p, tok{kind: 'l', lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && (s[i+1] == '*' || s[i+1] == '?' || s[i+1] == '\\'):
			lit.WriteByte(s[i+1])
			i++
		case c == '*' || c == '?':
			flush()
			p = append(p, tok{kind: c})
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return p
}

// literal is the text of a pattern of literals only.
func (p pattern) literal() (string, bool) {
	var b strings.Builder
	for _, t := range p {
		if t.kind != 'l' {
			return "", false
		}
		b.WriteString(t.lit)
	}
	return b.String(), true
}

// windash makes every dash of the literals any of dashes.
func (p pattern) windash() pattern {
	var out pattern
	for _, t := range p {
		if t.kind != 'l' {
			out = append(out, t)
			continue
		}
		start := 0
		for i, r := range t.lit {
			if strings.ContainsRune(dashes, r) {
				if i > start {
					out = append(out, tok{kind: 'l', lit: t.lit[start:i]})
				}
				out = append(out, tok{kind: '-'})
				start = i + len(string(r))
			}
		}
		if start < len(t.lit) {
			out = append(out, tok{kind: 'l', lit: t.lit[start:]})
		}
	}
	return out
}

// base64Offsets are the three encodings of s as it may appear inside a
// longer base64 text, at each offset modulo three: the characters that
// depend on its neighbours are cut off.
func base64Offsets(s string) []string {
	var out []string
	for shift := 0; shift < 3; shift++ {
		enc := base64.StdEncoding.EncodeToString([]byte(strings.Repeat(" ", shift) + s))
		// the leading characters carry bits of the padding spaces
		start := []int{0, 2, 3}[shift]
		// the trailing ones carry bits of whatever follows, unless the
		// value ends on a three-byte boundary
		end := len(enc)
		switch (len(s) + shift) % 3 {
		case 1:
			end -= 3
		case 2:
			end -= 2
		}
		end = len(strings.TrimRight(enc[:end], "="))
		if start < end {
			out = append(out, enc[start:end])
		}
	}
	return out
}

// strMatcher matches a whole value against a compiled pattern.
type strMatcher struct {
	op   byte // '=' whole value, '^' prefix, '$' suffix, '~' anywhere, 'g' glob, 'r' regexp
	lit  string
	re   *regexp.Regexp
	fold bool
	// glob: the literals between the *s of a pattern of literals and *s
	// alone (head is its first one and tail its last when the pattern
	// does not start or end with *), found left to right
	parts      []string
	head, tail bool
}

func compilePattern(p pattern, fold bool) (strMatcher, error) {
	if lit, ok := p.literal(); ok {
		return newLit('=', lit, fold), nil
	}
	if len(p) == 2 && p[0].kind == '*' && p[1].kind == 'l' {
		return newLit('$', p[1].lit, fold), nil
	}
	if len(p) == 2 && p[0].kind == 'l' && p[1].kind == '*' {
		return newLit('^', p[0].lit, fold), nil
	}
	if len(p) == 3 && p[0].kind == '*' && p[1].kind == 'l' && p[2].kind == '*' {
		return newLit('~', p[1].lit, fold), nil
	}
	if g, ok := newGlob(p, fold); ok {
		return g, nil
	}
	var b strings.Builder
	b.WriteString("(?s)")
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteByte('^')
	for _, t := range p {
		switch t.kind {
		case 'l':
			b.WriteString(regexp.QuoteMeta(t.lit))
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '-':
			b.WriteString("[" + regexp.QuoteMeta(dashes) + "]")
		}
	}
	b.WriteByte('$')
	re, err := regexp.Compile(b.String())
	if err != nil {
		return strMatcher{}, fmt.Errorf("pattern %q: %w", b.String(), err)
	}
	return strMatcher{op: 'r', re: re}, nil
}

func newLit(op byte, lit string, fold bool) strMatcher {
	if fold {
		lit = strings.ToLower(lit)
	}
	return strMatcher{op: op, lit: lit, fold: fold}
}

// newGlob is a pattern of literals and *s alone, matched without a
// regular expression: a * matches any text, so the leftmost place of
// each literal in turn is as good as any.
func newGlob(p pattern, fold bool) (strMatcher, bool) {
	g := strMatcher{op: 'g', fold: fold}
	lit, prev := "", byte(0)
	for i, t := range p {
		switch t.kind {
		case 'l':
			lit += t.lit
		case '*':
			if prev == 'l' || i == 0 {
				g.parts = append(g.parts, lit)
				lit = ""
			}
		default:
			return strMatcher{}, false
		}
		prev = t.kind
	}
	g.parts = append(g.parts, lit)
	// parts[0] is the text before the first *, the last the text after
	// the last one; either is "" when the pattern starts or ends with *
	g.head, g.tail = p[0].kind == 'l', p[len(p)-1].kind == 'l'
	if fold {
		for i := range g.parts {
			g.parts[i] = strings.ToLower(g.parts[i])
		}
	}
	return g, true
}

func (m strMatcher) glob(v string) bool {
	parts := m.parts
	if m.head {
		if !strings.HasPrefix(v, parts[0]) {
			return false
		}
		v = v[len(parts[0]):]
	}
	last := parts[len(parts)-1]
	if m.tail {
		if !strings.HasSuffix(v, last) {
			return false
		}
		v = v[:len(v)-len(last)]
	}
	for _, s := range parts[1 : len(parts)-1] {
		i := strings.Index(v, s)
		if i < 0 {
			return false
		}
		v = v[i+len(s):]
	}
	return true
}

func (m strMatcher) match(v string) bool {
	if m.op == 'r' {
		return m.re.MatchString(v)
	}
	if m.op == 'g' {
		if m.fold {
			v = strings.ToLower(v)
		}
		return m.glob(v)
	}
	if m.fold {
		switch m.op {
		case '=':
			return strings.EqualFold(v, m.lit)
		case '^':
			return len(v) >= len(m.lit) && strings.EqualFold(v[:len(m.lit)], m.lit)
		case '$':
			return len(v) >= len(m.lit) && strings.EqualFold(v[len(v)-len(m.lit):], m.lit)
		}
		v = strings.ToLower(v)
	}
	switch m.op {
	case '=':
		return v == m.lit
	case '^':
		return strings.HasPrefix(v, m.lit)
	case '$':
		return strings.HasSuffix(v, m.lit)
	}
	return strings.Contains(v, m.lit)
}
