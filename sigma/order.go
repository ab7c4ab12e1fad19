package sigma

import (
	"slices"
	"strings"
)

// A rule's truth does not depend on the order its selections and items
// are tried in: and, or and not have no side effects. A filter tries the
// cheaper ones first, so an event most rules are not about is turned
// away by an equality or a suffix before any regular expression or long
// list runs on it (a Sigma condition's "all of selection_*" names its
// selections in alphabetical order, which is no order of cost).

// itemCost estimates what matching an item costs, in tests of one
// literal against one value: a regular expression counts as many, a
// list as its length, every field read as one more pass.
func itemCost(it *Item) int {
	if it.has("exists") {
		return 1
	}
	n := 0
	for _, v := range it.Values {
		n += valueCost(it, v)
	}
	if foldPatterns(it) {
		n += 2 // one lowercasing of the value read
	}
	return max(n, 1) * max(len(it.Fields), 1)
}

func valueCost(it *Item, v Value) int {
	const re, glob, parsed = 30, 3, 4
	switch {
	case it.has("re"):
		return re
	case it.has("cidr"), it.has("lt"), it.has("lte"), it.has("gt"), it.has("gte"), it.has("fieldref"):
		return parsed
	case it.has("windash"), strings.ContainsRune(v.S, '?'):
		return re
	case it.has("contains"), it.has("base64offset"), it.Field == "":
		return 2
	case strings.ContainsRune(v.S, '*'):
		return glob
	}
	return 1
}

// cost is p's estimated cost: what trying every part of it costs.
func cost(p pred) int {
	switch t := p.(type) {
	case *itemPred:
		return t.cost
	case andPred:
		return costSum(t)
	case orPred:
		return costSum(t)
	case notPred:
		return cost(t.p)
	}
	return 1
}

func costSum(ps []pred) int {
	n := 0
	for _, p := range ps {
		n += cost(p)
	}
	return n
}

// ordered is p with the parts of every and and or tried cheapest first;
// the parts themselves are shared, not copied.
func ordered(p pred) pred {
	switch t := p.(type) {
	case andPred:
		return andPred(byCost(t))
	case orPred:
		return orPred(byCost(t))
	case notPred:
		return notPred{ordered(t.p)}
	}
	return p
}

func byCost(ps []pred) []pred {
	out := make([]pred, len(ps))
	for i, p := range ps {
		out[i] = ordered(p)
	}
	slices.SortStableFunc(out, func(a, b pred) int { return cost(a) - cost(b) })
	return out
}
