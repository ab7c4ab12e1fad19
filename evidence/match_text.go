package evidence

import (
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// analyzer is the index's text analysis (mapping.go): unicode
// word segmentation, then lowercase; no stop words, no stemming.
type analyzer struct {
	tok     analysis.Tokenizer
	filter  analysis.TokenFilter
	phrases int // quoted phrases met while compiling
}

func newAnalyzer() *analyzer {
	return &analyzer{tok: unicode.NewUnicodeTokenizer(), filter: lowercase.NewLowerCaseFilter()}
}

func (a *analyzer) stream(s string) analysis.TokenStream {
	return a.filter.Filter(a.tok.Tokenize([]byte(s)))
}

// words are the distinct tokens of s.
func (a *analyzer) words(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range a.stream(s) {
		if w := string(t.Term); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func (a *analyzer) tokens(s string) []string {
	var out []string
	for _, t := range a.stream(s) {
		out = append(out, string(t.Term))
	}
	return out
}

// eventStream analyses an event's text as the index keeps it: each term
// at most maxToken bytes (the query's own words are analysed whole).
func (a *analyzer) eventStream(s string) analysis.TokenStream {
	ts := a.stream(s)
	for _, t := range ts {
		if len(t.Term) > maxToken {
			t.Term = []byte(prefix(string(t.Term), maxToken))
		}
	}
	return ts
}

// anyToken reports whether fn holds for a token of an event's text s.
func (a *analyzer) anyToken(s string, fn func([]byte) bool) bool {
	for t := range a.eventWords(s) {
		if fn(t) {
			return true
		}
	}
	return false
}

// textPred matches a text field: any of toks, as a match query's default
// operator (OR) has it.
type textPred struct {
	f    Field
	toks []string
	an   *analyzer
}

func (p textPred) match(ev *Event) bool {
	for _, s := range p.f.parts(ev) {
		if s != "" && p.matchText(s) {
			return true
		}
	}
	return false
}

// matchText first checks that a token occurs as a substring at all (no
// allocation), and analyses the text only when one might: most events
// never reach the tokenizer.
func (p textPred) matchText(s string) bool {
	maybe := false
	plain := isLowerASCII(s)
	for _, t := range p.toks {
		if plain && strings.Contains(s, t) || !plain && containsFold(s, t) {
			maybe = true
			break
		}
	}
	if !maybe {
		return false
	}
	for t := range p.an.eventWords(s) {
		for _, want := range p.toks {
			if string(t) == want {
				return true
			}
		}
	}
	return false
}

// containsFold reports whether s contains sub, ignoring ASCII case (sub is
// lowercase, being analysed). Outside ASCII it says maybe (true), leaving
// the answer to the tokenizer.
func containsFold(s, sub string) bool {
	if !isASCII(sub) || !isASCII(s) {
		return true
	}
	return indexFoldASCII(s, sub)
}

// indexFoldASCII reports whether some i has lower(s[i+j]) == sub[j] for
// every j. The places where sub's first byte can begin are found with
// strings.IndexByte, for each case of a letter, rather than by trying
// every byte of s: the rules' queries ask it of every event of a replay
// (a third of its reader's matching).
func indexFoldASCII(s, sub string) bool {
	n := len(sub)
	if n == 0 {
		return true
	}
	c, u := sub[0], sub[0] // the bytes that fold to sub[0]
	switch {
	case c >= 'a' && c <= 'z':
		u = c - 'a' + 'A'
	case c >= 'A' && c <= 'Z':
		return false // no byte folds to an upper-case one
	}
	end := len(s) - n + 1  // where a match may begin, before it
	nextC, nextU := -1, -1 // the next place of each at or after i (end: none)
	next := func(b byte, i int) int {
		if k := strings.IndexByte(s[i:end], b); k >= 0 {
			return i + k
		}
		return end
	}
	for i := 0; i < end; {
		if nextC < i {
			nextC = next(c, i)
		}
		if nextU < i {
			nextU = nextC
			if u != c {
				nextU = next(u, i)
			}
		}
		at := min(nextC, nextU)
		if at >= end {
			return false
		}
		j := 1
		for j < n && lower(s[at+j]) == sub[j] {
			j++
		}
		if j == n {
			return true
		}
		i = at + 1
	}
	return false
}

// isLowerASCII reports text of ASCII without an upper-case letter: there
// a lowercase word occurs folded exactly where it occurs as it is.
func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c >= 'A' && c <= 'Z' {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
