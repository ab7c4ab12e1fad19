package sigma

import (
	"encoding/base64"
	"net/netip"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// pred is a compiled part of a rule, matched against one event in memory.
type pred interface {
	match(ev *evidence.Event) bool
	write(b *strings.Builder)
}

type andPred []pred
type orPred []pred
type notPred struct{ p pred }

func (a andPred) match(ev *evidence.Event) bool {
	for _, p := range a {
		if !p.match(ev) {
			return false
		}
	}
	return true
}

func (o orPred) match(ev *evidence.Event) bool {
	for _, p := range o {
		if p.match(ev) {
			return true
		}
	}
	return false
}

func (n notPred) match(ev *evidence.Event) bool { return !n.p.match(ev) }

func writeList(b *strings.Builder, op string, ps []pred) {
	b.WriteString("(" + op)
	for _, p := range ps {
		b.WriteByte(' ')
		p.write(b)
	}
	b.WriteByte(')')
}

func (a andPred) write(b *strings.Builder) { writeList(b, "and", a) }
func (o orPred) write(b *strings.Builder)  { writeList(b, "or", o) }
func (n notPred) write(b *strings.Builder) { writeList(b, "not", []pred{n.p}) }

// itemPred is one item: field|mods: values.
type itemPred struct {
	text    string
	readers []func(*evidence.Event) []string
	tests   []valueTest // or-ed, and-ed with all
	all     bool
	neq     bool
	exists  *bool
	// formats, when set, are the only formats whose events can hold the
	// item's fields (sigma/written.go): on another's event the item is
	// false, its value unknown rather than absent.
	formats map[string]bool
	fields  []string
	fold    bool // a test reads the lowercased values
	cost    int  // itemCost
	// anchor is what the item needs of its field (anchor.go)
	anchor   anchor
	anchored bool
	// one reads the field when the item has one field, of one value at
	// most: the value and its lowercased form then share one allocation
	one func(*evidence.Event) string
}

// valueTest is one Sigma value: true when any of the field's values
// passes it.
type valueTest func(in values, ev *evidence.Event) bool

// values are a field's values as a test reads them: one value (the
// common case: cmdline, url, user_agent …) held in place rather than in a
// slice, which a test called through a func value would make the heap
// hold, once per item and event; or a list. The lowercased forms are
// there when the item has a case-insensitive pattern, made once per item,
// not once per value.
type values struct {
	one, oneLower string
	hasOne        bool
	vals, lower   []string
}

func (in values) n() int {
	if in.hasOne {
		return 1
	}
	return len(in.vals)
}

// list is the values as a slice (fieldref, rare, reads them so).
func (in values) list() []string {
	if in.hasOne {
		return []string{in.one}
	}
	return in.vals
}

func (p *itemPred) write(b *strings.Builder) { b.WriteString(p.text) }

func (p *itemPred) match(ev *evidence.Event) bool {
	if !p.carried(ev) {
		return false
	}
	var in values
	if p.one != nil {
		if v := p.one(ev); v != "" {
			in.one, in.hasOne = v, true
			if p.fold {
				in.oneLower = strings.ToLower(v)
			}
		}
	} else if len(p.readers) == 1 {
		in.vals = p.readers[0](ev)
	} else {
		for _, r := range p.readers {
			in.vals = append(in.vals, r(ev)...)
		}
	}
	if p.exists != nil {
		return (in.n() > 0) == *p.exists
	}
	if p.fold && len(in.vals) > 0 {
		in.lower = make([]string, len(in.vals))
		for i, v := range in.vals {
			in.lower[i] = strings.ToLower(v)
		}
	}
	ok := p.all
	for _, t := range p.tests {
		if t(in, ev) != p.all {
			// one value decides: a miss under all, a hit otherwise
			ok = !p.all
			break
		}
	}
	return ok != p.neq
}

// compileItem compiles an item whose Fields are cordon fields.
func compileItem(f *refuser, it *Item, src *sourceFormats) (pred, *Refusal) {
	p := &itemPred{all: it.has("all"), neq: it.has("neq"), formats: src.itemFormats(it.Fields), fields: it.Fields,
		fold: foldPatterns(it), cost: itemCost(it)}
	for _, name := range it.Fields {
		p.readers = append(p.readers, fieldReader(name))
	}
	if len(it.Fields) == 1 {
		p.one = oneReader(it.Fields[0])
	}
	p.text = "{" + strings.Join(it.Fields, ",") + "|" + strings.Join(it.Mods, "|") + ":"
	for _, v := range it.Values {
		if v.Null {
			p.text += " null"
		} else {
			p.text += " " + strconv.Quote(v.S)
		}
	}
	p.text += "}"
	if it.has("exists") {
		want := it.Values[0].S == "true"
		p.exists = &want
		return p, nil
	}
	if !p.neq {
		p.anchor, p.anchored = itemAnchor(it, p.one != nil)
	}
	for _, v := range it.Values {
		t, ref := compileValue(f, it, v)
		if ref != nil {
			return nil, ref
		}
		p.tests = append(p.tests, t)
	}
	return p, nil
}

// foldPatterns reports an item whose values are case-insensitive
// patterns, which compileValue matches against the lowercased values.
func foldPatterns(it *Item) bool {
	for _, m := range []string{"cased", "exists", "re", "cidr", "lt", "lte", "gt", "gte", "fieldref", "base64", "base64offset"} {
		if it.has(m) {
			return false
		}
	}
	return !it.exact
}

func compileValue(f *refuser, it *Item, v Value) (valueTest, *Refusal) {
	if v.Null || v.S == "" && len(it.Mods) == 0 {
		// cordon keeps no empty values: null and '' both mean "no value"
		return func(in values, _ *evidence.Event) bool { return in.n() == 0 }, nil
	}
	fold := !it.exact && !it.has("cased")
	switch {
	case it.has("re"):
		flags := ""
		for _, m := range []string{"i", "m", "s"} {
			if it.has(m) {
				flags += m
			}
		}
		src := v.S
		if flags != "" {
			src = "(?" + flags + ")" + src
		}
		m, err := compileRegexp(src)
		if err != nil {
			return nil, f.at(v.node, "re %q: %v", v.S, err)
		}
		return anyValue(m.MatchString), nil
	case it.has("cidr"):
		pfx, _ := netip.ParsePrefix(v.S)
		return anyValue(func(s string) bool {
			a, err := netip.ParseAddr(s)
			return err == nil && pfx.Contains(a.Unmap())
		}), nil
	case it.has("lt"), it.has("lte"), it.has("gt"), it.has("gte"):
		x, _ := strconv.ParseFloat(v.S, 64)
		var cmp func(float64) bool
		switch {
		case it.has("lt"):
			cmp = func(n float64) bool { return n < x }
		case it.has("lte"):
			cmp = func(n float64) bool { return n <= x }
		case it.has("gt"):
			cmp = func(n float64) bool { return n > x }
		default:
			cmp = func(n float64) bool { return n >= x }
		}
		return anyValue(func(s string) bool {
			n, err := strconv.ParseFloat(s, 64)
			return err == nil && cmp(n)
		}), nil
	case it.has("fieldref"):
		if !cordonField(v.S) {
			return nil, f.at(v.node, "fieldref %q: the pipeline maps it to no cordon field", v.S)
		}
		other := fieldReader(v.S)
		return func(in values, ev *evidence.Event) bool {
			for _, o := range other(ev) {
				for _, s := range in.list() {
					if s == o || fold && strings.EqualFold(s, o) {
						return true
					}
				}
			}
			return false
		}, nil
	}
	pats := []pattern{parseWildcards(v.S)}
	for _, m := range it.Mods {
		switch m {
		case "base64", "base64offset":
			var next []pattern
			for _, p := range pats {
				lit, ok := p.literal()
				if !ok {
					return nil, f.at(v.node, "%s of a value with wildcards has no meaning (put contains after it)", m)
				}
				encs := []string{base64.StdEncoding.EncodeToString([]byte(lit))}
				if m == "base64offset" {
					encs = base64Offsets(lit)
				}
				for _, e := range encs {
					next = append(next, pattern{{kind: 'l', lit: e}})
				}
			}
			pats = next
			fold = false // base64 text is case-sensitive
		case "windash":
			for i := range pats {
				pats[i] = pats[i].windash()
			}
		case "contains", "startswith", "endswith":
			for i := range pats {
				if m != "startswith" {
					pats[i] = append(pattern{{kind: '*'}}, pats[i]...)
				}
				if m != "endswith" {
					pats[i] = append(pats[i], tok{kind: '*'})
				}
			}
		}
	}
	if it.Field == "" && !it.has("contains") && !it.has("startswith") && !it.has("endswith") {
		// a keyword is found anywhere in the event's text
		for i := range pats {
			pats[i] = append(append(pattern{{kind: '*'}}, pats[i]...), tok{kind: '*'})
		}
	}
	var ms []strMatcher
	for _, p := range pats {
		m, err := compilePattern(p, fold)
		if err != nil {
			return nil, f.at(v.node, "%v", err)
		}
		ms = append(ms, m)
	}
	if fold {
		// the patterns are lowercased: they read the values lowercased,
		// and need not lowercase them again
		for i := range ms {
			ms[i].fold = false
		}
		return func(in values, _ *evidence.Event) bool {
			if in.hasOne {
				for _, m := range ms {
					if m.match(in.oneLower) {
						return true
					}
				}
				return false
			}
			for _, s := range in.lower {
				for _, m := range ms {
					if m.match(s) {
						return true
					}
				}
			}
			return false
		}, nil
	}
	return anyValue(func(s string) bool {
		for _, m := range ms {
			if m.match(s) {
				return true
			}
		}
		return false
	}), nil
}

func anyValue(ok func(string) bool) valueTest {
	return func(in values, _ *evidence.Event) bool {
		if in.hasOne {
			return ok(in.one)
		}
		for _, s := range in.vals {
			if ok(s) {
				return true
			}
		}
		return false
	}
}

// Filter is a compiled Sigma rule: detect.Filter.
type Filter struct {
	p    pred // as the rule writes it
	m    pred // p, tried cheapest first (order.go)
	text string
	// ix is the index of the filter's set, when it is anchored (index.go),
	// and slot its place there
	ix   *index
	slot int
}

func newFilter(p pred) *Filter {
	var b strings.Builder
	p.write(&b)
	return &Filter{p: p, m: ordered(p), text: b.String()}
}

// Match reports whether the event is the rule's.
func (f *Filter) Match(ev *evidence.Event) bool { return f.m.match(ev) }

// MarshalText is the filter's canonical text.
func (f *Filter) MarshalText() ([]byte, error) { return []byte(f.text), nil }

// String is the filter's canonical text.
func (f *Filter) String() string { return f.text }
