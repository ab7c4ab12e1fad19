package common

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/evidence"
)

// HitTerms are the words of a search to show highlighted where they occur:
// the values of its terms, prefixes and wildcards (without * and ?), not
// those under NOT, which match nothing shown.
func HitTerms(q evidence.Query) []string {
	var out []string
	var walk func(q evidence.Query)
	walk = func(q evidence.Query) {
		switch q.Op() {
		case evidence.OpAnd, evidence.OpOr:
			for _, s := range q.Subs() {
				walk(s)
			}
		case evidence.OpTerm, evidence.OpPrefix, evidence.OpWildcard:
			v := strings.ToLower(strings.Trim(q.Value(), "*?"))
			if i := strings.IndexAny(v, "*?"); i >= 0 {
				v = v[:i] // the part before the first wildcard is what shows
			}
			if len([]rune(v)) >= 2 && !containsString(out, v) {
				out = append(out, v)
			}
		}
	}
	walk(q)
	return out
}

func containsString(l []string, s string) bool {
	for _, v := range l {
		if v == s {
			return true
		}
	}
	return false
}

// Highlight renders text (already safe and cut to its cell) in base, with
// every case-insensitive occurrence of a term in hit. No terms: one
// Render, so that a row without a search costs what it did.
func Highlight(text string, terms []string, base, hit lipgloss.Style) string {
	if len(terms) == 0 || text == "" {
		return base.Render(text)
	}
	lower := strings.ToLower(text)
	if len(lower) != len(text) {
		// a letter whose lower case has another length: byte offsets
		// would not line up, and an unmarked hit is better than a torn rune
		return base.Render(text)
	}
	marked := make([]bool, len(text))
	any := false
	for _, t := range terms {
		for from := 0; from < len(lower); {
			i := strings.Index(lower[from:], t)
			if i < 0 {
				break
			}
			for j := from + i; j < from+i+len(t); j++ {
				marked[j] = true
			}
			any = true
			from += i + len(t)
		}
	}
	if !any {
		return base.Render(text)
	}
	var b strings.Builder
	for i := 0; i < len(text); {
		j := i
		for j < len(text) && marked[j] == marked[i] {
			j++
		}
		if marked[i] {
			b.WriteString(hit.Render(text[i:j]))
		} else {
			b.WriteString(base.Render(text[i:j]))
		}
		i = j
	}
	return b.String()
}
