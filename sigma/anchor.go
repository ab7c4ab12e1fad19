package sigma

import "strings"

// An anchor is what a rule needs of one field for any event to match
// it: the field's value, whole or its last path segment, lowercased, is
// one of keys. Rules with anchors are looked up by the event's key, once
// an event for all of them, rather than tried one by one (index.go).
type anchor struct {
	field string
	base  bool // the key is the value's last path segment (an endswith '/x')
	keys  []string
}

// itemAnchor is the anchor an item gives: one field of one value at
// most, every value a literal the item compares whole or, under
// endswith, a literal with a '/' in it; ASCII only, so that lowercasing
// is case folding. False when the item gives none.
func itemAnchor(it *Item, one bool) (anchor, bool) {
	// a pipeline's condition (exact) is the log source's, which the
	// rule's query already asks: every event it is tried on has it
	if it.exact || !one || len(it.Fields) != 1 || len(it.Values) == 0 {
		return anchor{}, false
	}
	base := false
	for _, m := range it.Mods {
		switch m {
		case "endswith":
			base = true
		case "cased", "all":
		default:
			return anchor{}, false
		}
	}
	a := anchor{field: it.Fields[0], base: base}
	for _, v := range it.Values {
		lit, ok := parseWildcards(v.S).literal()
		if v.Null || !ok || lit == "" || !ascii(lit) {
			return anchor{}, false
		}
		if base {
			i := strings.LastIndexByte(lit, '/')
			if i < 0 || i == len(lit)-1 {
				return anchor{}, false
			}
			lit = lit[i+1:]
		}
		a.keys = append(a.keys, strings.ToLower(lit))
		if it.has("all") {
			break // every value must match: the first one's key is needed
		}
	}
	return a, true
}

// anchorOf is an anchor p needs, if it has one: an item's; for an and,
// the anchor of any part (the one with fewest keys); for an or, the keys
// of every part together when all are anchored on the same field alike.
func anchorOf(p pred) (anchor, bool) {
	switch t := p.(type) {
	case *itemPred:
		return t.anchor, t.anchored
	case andPred:
		var best anchor
		found := false
		for _, c := range t {
			if a, ok := anchorOf(c); ok && (!found || len(a.keys) < len(best.keys)) {
				best, found = a, true
			}
		}
		return best, found
	case orPred:
		var all anchor
		for i, c := range t {
			a, ok := anchorOf(c)
			if !ok || i > 0 && (a.field != all.field || a.base != all.base) {
				return anchor{}, false
			}
			all.field, all.base = a.field, a.base
			all.keys = append(all.keys, a.keys...)
		}
		return all, len(t) > 0
	}
	return anchor{}, false
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
