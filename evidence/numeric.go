package evidence

import (
	"math"

	"github.com/blevesearch/bleve/v2/search/query"
)

// Numbers (bytes_out, bytes_in) are indexed as a few terms of their own,
// not as Bleve's numeric field, which indexes sixteen terms for every
// number (one per 4 bits of 64) even when a number has 20 bits. A number
// v >= 0 is indexed at shift 0 (v itself) and at every shift of 8 bits
// that leaves something of it (v>>8 if it is not 0, v>>16, …): 1 to 3
// terms for the sizes evidence holds. A negative number (a malformed
// record) is indexed as one term of its own family. Each term is a family
// letter, the shift as a letter, and 16 hex digits, so that within one
// shift the terms sort as the numbers do, and a range is a handful of
// term ranges (numSpans).

// numTerm is the term of prefix p at shift s of a family ('p' for numbers
// >= 0, 'n' for negative ones).
func numTerm(family byte, s uint, p uint64) string {
	const hex = "0123456789abcdef"
	var b [18]byte
	b[0], b[1] = family, 'a'+byte(s/8)
	for i := len(b) - 1; i >= 2; i-- {
		b[i] = hex[p&15]
		p >>= 4
	}
	return string(b[:])
}

// numTerms are the terms v is indexed as.
func numTerms(v int64) []string {
	if v < 0 {
		return []string{numTerm('n', 0, uint64(^v))} // -1 → 0, -2 → 1: order reversed
	}
	u := uint64(v)
	out := []string{numTerm('p', 0, u)}
	for s := uint(8); s < 64 && u>>s > 0; s += 8 {
		out = append(out, numTerm('p', s, u>>s))
	}
	return out
}

// termSpan is an inclusive range of terms.
type termSpan struct{ lo, hi string }

// numSpans are term ranges that together hold exactly the numbers in
// [lo, hi].
func numSpans(lo, hi int64) []termSpan {
	if lo > hi {
		return nil
	}
	var out []termSpan
	if lo < 0 {
		neg := min(hi, -1)
		out = append(out, termSpan{numTerm('n', 0, uint64(^neg)), numTerm('n', 0, uint64(^lo))})
		if hi < 0 {
			return out
		}
		lo = 0
	}
	return append(out, posSpans(uint64(lo), uint64(hi))...)
}

// posSpans splits [lo, hi] (hi < 1<<63) into whole blocks of the widest
// shift that fits, as Lucene's numeric ranges do: at each shift, the
// partial blocks at either end, and what is left goes to the next shift.
func posSpans(lo, hi uint64) []termSpan {
	var out []termSpan
	emit := func(s uint, a, b uint64) {
		if s > 0 && a == 0 {
			// Numbers below 1<<s have no term at shift s: they are the
			// prefixes 1–255 of each lower shift, and those below 256.
			out = append(out, termSpan{numTerm('p', 0, 0), numTerm('p', 0, 255)})
			for t := uint(8); t < s; t += 8 {
				out = append(out, termSpan{numTerm('p', t, 1), numTerm('p', t, 255)})
			}
			if a = 1; a > b {
				return
			}
		}
		out = append(out, termSpan{numTerm('p', s, a), numTerm('p', s, b)})
	}
	for s := uint(0); ; s += 8 {
		// lo is a multiple of 1<<s, and so is hi+1.
		if s+8 >= 64 {
			emit(s, lo>>s, hi>>s)
			return out
		}
		block := uint64(1) << (s + 8)
		up := (lo + block - 1) &^ (block - 1) // first whole block of the next shift
		down := (hi + 1) &^ (block - 1)       // and the end of the last one
		if up >= down {
			emit(s, lo>>s, hi>>s)
			return out
		}
		if lo < up {
			emit(s, lo>>s, (up>>s)-1)
		}
		if down <= hi {
			emit(s, down>>s, hi>>s)
		}
		lo, hi = up, down-1
	}
}

// intBounds turns a query's bounds into the integers [lo, hi] it holds.
func intBounds(lo, hi *float64, loIncl, hiIncl bool) (int64, int64) {
	l, h := int64(math.MinInt64), int64(math.MaxInt64)
	if lo != nil {
		x := math.Floor(*lo) + 1
		if loIncl || *lo != math.Floor(*lo) {
			x = math.Ceil(*lo)
		}
		l = clampInt(x)
	}
	if hi != nil {
		x := math.Ceil(*hi) - 1
		if hiIncl || *hi != math.Ceil(*hi) {
			x = math.Floor(*hi)
		}
		h = clampInt(x)
	}
	return l, h
}

func clampInt(x float64) int64 {
	switch {
	case x >= math.MaxInt64:
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// numRangeQuery is a numeric range on field as Bleve term ranges.
func numRangeQuery(field string, lo, hi *float64, loIncl, hiIncl bool) query.Query {
	l, h := intBounds(lo, hi, loIncl, hiIncl)
	spans := numSpans(l, h)
	if len(spans) == 0 {
		return query.NewMatchNoneQuery()
	}
	incl := true
	ds := make([]query.Query, len(spans))
	for i, sp := range spans {
		q := query.NewTermRangeInclusiveQuery(sp.lo, sp.hi, &incl, &incl)
		q.SetField(field)
		ds[i] = q
	}
	return query.NewDisjunctionQuery(ds)
}
