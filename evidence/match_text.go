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
	n := len(sub)
	for i := 0; i+n <= len(s); i++ {
		j := 0
		for j < n && lower(s[i+j]) == sub[j] {
			j++
		}
		if j == n {
			return true
		}
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
