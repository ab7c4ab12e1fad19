package evidence

import (
	"fmt"
	"slices"
	"strconv"
)

// Matcher decides in memory whether an event matches a typed query, the
// way the evidence index would: it evaluates the query against the
// event's fields as the mapping indexes them (keywords exact, text by
// lowercased unicode tokens, the catch-all field for bare words). It
// serves the detectors' in-memory source and the clauses a store cannot
// answer before attribution is persisted.
type Matcher struct {
	query Query
	p     pred
}

// pred is a compiled query node.
type pred interface {
	match(ev *Event) bool
}

// Compile compiles a query. It fails only on a query built in code that
// names an unknown field or holds a bad regular expression: Parse refuses
// those already.
func Compile(q Query) (*Matcher, error) {
	p, err := compileNode(q, newAnalyzer())
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrQuery, q, err)
	}
	return &Matcher{query: q, p: p}, nil
}

// Match reports whether ev matches.
func (m *Matcher) Match(ev *Event) bool { return m.p.match(ev) }

// Query returns the query compiled.
func (m *Matcher) Query() Query { return m.query }

type always bool

func (a always) match(*Event) bool { return bool(a) }

func compileNode(q Query, an *analyzer) (pred, error) {
	switch q.op {
	case OpAll:
		return always(true), nil
	case OpNone:
		return always(false), nil
	case OpAnd, OpOr:
		ps := make([]pred, len(q.subs))
		for i, s := range q.subs {
			p, err := compileNode(s, an)
			if err != nil {
				return nil, err
			}
			ps[i] = p
		}
		if q.op == OpAnd {
			return andPred(ps), nil
		}
		return mergeOr(ps), nil
	case OpNot:
		p, err := compileNode(q.subs[0], an)
		if err != nil {
			return nil, err
		}
		return notPred{p}, nil
	case OpIDs:
		set := make(map[string]bool, len(q.values))
		for _, id := range q.values {
			set[id] = true
		}
		return idPred(set), nil
	case OpTerm:
		if q.fold {
			f, err := fieldFor(q.field)
			if err != nil {
				return nil, err
			}
			if f.kind != textField {
				return compilePattern(q.field, leafRegexp(q, false), an)
			}
		}
		return compileTerm(q.field, q.value, an)
	case OpPrefix, OpWildcard, OpRegexp:
		if f, _ := LookupField(q.field); f.kind == numField && q.op == OpWildcard && q.value == "*" {
			return compileNumRange(NumRange(q.field, nil, nil, false, false)) // bytes_out:* is any number
		}
		return compilePattern(q.field, leafRegexp(q, false), an)
	case OpNumRange:
		return compileNumRange(q)
	case OpTimeRange:
		since, until := q.Span()
		return dateRange{start: since, end: until}, nil
	}
	return nil, fmt.Errorf("query node %d is not supported", q.op)
}

type notPred struct{ p pred }

func (n notPred) match(ev *Event) bool { return !n.p.match(ev) }

type idPred map[string]bool

func (s idPred) match(ev *Event) bool { return s[ev.ID] }

type andPred []pred

func (a andPred) match(ev *Event) bool {
	for _, p := range a {
		if !p.match(ev) {
			return false
		}
	}
	return true
}

type orPred []pred

func (o orPred) match(ev *Event) bool {
	for _, p := range o {
		if p.match(ev) {
			return true
		}
	}
	return false
}

// mergeOr joins the branches of an OR that read the same field the same
// way into one that reads it once: the exact values of a keyword field
// (kind:(a OR b OR c)) into one set, the words of a text field
// (cmdline:(crontab OR nohup)) into one list, as a match query's OR of
// its words has them. What an event matches does not change.
func mergeOr(ps []pred) pred {
	var out []pred
	exact := map[string]int{} // field -> its set's place in out
	text := map[string]int{}
	for _, p := range ps {
		switch p := p.(type) {
		case exactPred:
			if p.f.kind != kwField {
				break
			}
			if i, ok := exact[p.f.name]; ok {
				s := out[i].(inPred)
				s.vs = append(s.vs, p.v)
				out[i] = s
			} else {
				exact[p.f.name] = len(out)
				out = append(out, inPred{f: p.f, vs: []string{p.v}})
			}
			continue
		case textPred:
			if i, ok := text[p.f.name]; ok {
				t := out[i].(textPred)
				t.toks = append(t.toks, p.toks...)
				out[i] = t
			} else {
				text[p.f.name] = len(out)
				p.toks = slices.Clone(p.toks)
				out = append(out, p)
			}
			continue
		}
		out = append(out, p)
	}
	if len(out) == 1 {
		return out[0]
	}
	return orPred(out)
}

// inPred matches a keyword field holding one of vs.
type inPred struct {
	f  Field
	vs []string
}

func (p inPred) match(ev *Event) bool {
	v := p.f.str(ev)
	for _, w := range p.vs {
		if v == w {
			return true
		}
	}
	return false
}

func fieldFor(name string) (Field, error) {
	f, ok := LookupField(name)
	if !ok {
		return Field{}, fmt.Errorf("unknown field %q", name)
	}
	return f, nil
}

// compileTerm is a match: the exact value of a keyword field, any of the
// tokens of a text field (the default operator is OR).
func compileTerm(name, text string, an *analyzer) (pred, error) {
	f, err := fieldFor(name)
	if err != nil {
		return nil, err
	}
	switch f.kind {
	case kwField, listField:
		return exactPred{f: f, v: text}, nil
	case intField:
		n, err := strconv.ParseInt(text, 10, 64)
		if err != nil || strconv.FormatInt(n, 10) != text {
			return always(false), nil // the index holds canonical decimals only
		}
		return intPred{f: f, n: n}, nil
	case numField, timeField:
		return always(false), nil // a term never matches a numeric field
	}
	toks := an.tokens(text)
	if len(toks) == 0 {
		return always(false), nil // the index finds nothing for no word
	}
	return textPred{f: f, toks: toks, an: an}, nil
}

type exactPred struct {
	f Field
	v string
}

func (p exactPred) match(ev *Event) bool {
	if p.f.kind == kwField {
		return p.f.str(ev) == p.v
	}
	for _, v := range p.f.list(ev) {
		if v == p.v {
			return true
		}
	}
	return false
}

type intPred struct {
	f Field
	n int64
}

func (p intPred) match(ev *Event) bool { n := p.f.num(ev); return n != 0 && n == p.n }
