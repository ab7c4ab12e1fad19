package sigma

import "strings"

// An anchor is what a rule needs of one field for any event to match
// it: the field's value, lowercased, is one of keys (whole), ends in a
// path segment that is one of them (segment), or holds one of them
// (within). Rules with anchors are looked up by the event's value, once
// an event for all of them, rather than tried one by one (index.go).
type anchor struct {
	field string
	kind  anchorKind
	keys  []string
}

type anchorKind byte

const (
	whole   anchorKind = iota // the value is a key
	segment                   // the value's last path segment is a key (an endswith '/x')
	within                    // the value holds a key (contains, startswith, endswith)
)

// itemAnchor is the anchor an item gives: one field of one value at
// most, compared with every value's literal text (or a value with
// wildcards, its longest literal run) of ASCII only, so that lowercasing
// is case folding. False when the item gives none.
func itemAnchor(it *Item, one bool) (anchor, bool) {
	// a pipeline's condition (exact) is the log source's, which the
	// rule's query already asks: every event it is tried on has it
	if it.exact || !one || len(it.Fields) != 1 || len(it.Values) == 0 {
		return anchor{}, false
	}
	kind := whole
	for _, m := range it.Mods {
		switch m {
		case "endswith":
			kind = max(kind, segment)
		case "contains", "startswith":
			kind = within
		case "cased", "all":
		default:
			return anchor{}, false
		}
	}
	a := anchor{field: it.Fields[0], kind: kind}
	var keys []string
	for _, v := range it.Values {
		if v.Null {
			return anchor{}, false
		}
		p := parseWildcards(v.S)
		lit, ok := p.literal()
		if !ok {
			// a value with wildcards holds each of its literal runs: the
			// longest is the key
			lit, a.kind = longestRun(p), within
		}
		if lit == "" || !ascii(lit) {
			return anchor{}, false
		}
		keys = append(keys, strings.ToLower(lit))
		if it.has("all") {
			break // every value must match: the first one's key is needed
		}
	}
	if a.kind == segment {
		// a suffix with no path separator before its end is held, no more
		for _, k := range keys {
			if j := strings.LastIndexByte(k, '/'); j < 0 || j == len(k)-1 {
				a.kind = within
				return a.with(keys), true
			}
		}
		for i, k := range keys {
			keys[i] = k[strings.LastIndexByte(k, '/')+1:]
		}
	}
	return a.with(keys), true
}

func (a anchor) with(keys []string) anchor { a.keys = keys; return a }

func longestRun(p pattern) string {
	best := ""
	for _, t := range p {
		if t.kind == 'l' && len(t.lit) > len(best) {
			best = t.lit
		}
	}
	return best
}

// as is a in a kind no narrower than k: a whole value or a last segment
// that is a key also holds it.
func (a anchor) as(k anchorKind) anchor {
	if a.kind != k && k == within {
		a.kind = within
	}
	return a
}

// anchorOf is an anchor p needs, if it has one: an item's; for an and,
// the anchor of any part (looked up rather than scanned for, then the
// one with fewest keys); for an or, the keys of every part together when
// all are anchored on the same field.
func anchorOf(p pred) (anchor, bool) {
	switch t := p.(type) {
	case *itemPred:
		return t.anchor, t.anchored
	case andPred:
		var best anchor
		found := false
		for _, c := range t {
			a, ok := anchorOf(c)
			if ok && (!found || better(a, best)) {
				best, found = a, true
			}
		}
		return best, found
	case orPred:
		var parts []anchor
		for _, c := range t {
			a, ok := anchorOf(c)
			if !ok || len(parts) > 0 && a.field != parts[0].field {
				return anchor{}, false
			}
			parts = append(parts, a)
		}
		if len(parts) == 0 {
			return anchor{}, false
		}
		kind := parts[0].kind
		for _, a := range parts[1:] {
			if a.kind != kind {
				kind = within
			}
		}
		all := anchor{field: parts[0].field, kind: kind}
		for _, a := range parts {
			all.keys = append(all.keys, a.as(kind).keys...)
		}
		return all, true
	}
	return anchor{}, false
}

func better(a, b anchor) bool {
	if (a.kind == within) != (b.kind == within) {
		return a.kind != within
	}
	return len(a.keys) < len(b.keys)
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
