package evidence

import (
	"iter"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	index "github.com/blevesearch/bleve_index_api"
)

// Character classes of Unicode word segmentation (UAX #29, as the segment
// package implements it for Unicode 8.0) restricted to ASCII.
const (
	cOther = iota
	cLetter
	cDigit
	cUnderscore // ExtendNumLet
	cMidLetter  // ':' joins letters only
	cMidNumLet  // '.' and '\'' join letters and digits
	cMidNum     // ',' and ';' join digits only
)

var asciiClass = func() (t [128]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-32] = cLetter, cLetter
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = cDigit
	}
	t['_'] = cUnderscore
	t[':'] = cMidLetter
	t['.'], t['\''] = cMidNumLet, cMidNumLet
	t[','], t[';'] = cMidNum, cMidNum
	return t
}()

func isWordClass(c byte) bool { return c == cLetter || c == cDigit || c == cUnderscore }

// joins reports whether a mid character between the classes before and
// after it keeps them in one word.
func joins(mid, before, after byte) bool {
	switch mid {
	case cMidLetter:
		return before == cLetter && after == cLetter
	case cMidNumLet:
		return before == after && (before == cLetter || before == cDigit)
	case cMidNum:
		return before == cDigit && after == cDigit
	}
	return false
}

// asciiWords calls emit with the bounds of each word of s, which must be
// pure ASCII: the same words the unicode tokenizer finds (letters, digits
// and underscores, joined across a single '.', '\”, ':', ',' or ';' where
// UAX #29 joins them), several times faster. tokenize_test.go checks the
// two agree.
func asciiWords(s []byte, emit func(start, end int)) {
	i, n := 0, len(s)
	for i < n {
		if !isWordClass(asciiClass[s[i]]) {
			i++
			continue
		}
		start := i
		prev := asciiClass[s[i]]
		i++
		for i < n {
			c := asciiClass[s[i]]
			if isWordClass(c) {
				prev = c
				i++
				continue
			}
			if i+1 < n && prev != cUnderscore && joins(c, prev, asciiClass[s[i+1]]) {
				prev = asciiClass[s[i+1]]
				i += 2
				continue
			}
			break
		}
		emit(start, i)
	}
}

func isASCII[T string | []byte](s T) bool {
	i := 0
	// eight bytes at a time, one test for them all: the rules' text
	// queries ask it of every event's text
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8]
		if b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7] >= 0x80 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// maxToken bounds a term the index keeps: a longer word is indexed as its
// first maxToken bytes (and the Matcher reads events the same way). A word
// of megabytes of hex is one term, and the index's term dictionary cost
// memory in proportion to its longest terms, on every merge; a search
// never names such a word.
const maxToken = 1 << 10

// textFreqs analyses text as the cordon_text analyzer does (unicode words,
// lowercased), without positions: ASCII on the fast path, anything else
// through the analyzer itself.
func textFreqs(a analysis.Analyzer, text []byte) (int, index.TokenFrequencies) {
	if !isASCII(text) {
		tokens := a.Analyze(text)
		for _, t := range tokens {
			t.Term = []byte(prefix(string(t.Term), maxToken))
		}
		return len(tokens), analysis.TokenFrequency(tokens, nil, index.IndexField)
	}
	lower := make([]byte, len(text))
	for i, c := range text {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	// One string backs every map key; TokenFreqs come in small slabs.
	keys := string(lower)
	bp := boundsPool.Get().(*[][2]int)
	bounds := (*bp)[:0]
	asciiWords(lower, func(start, end int) { bounds = append(bounds, [2]int{start, min(end, start+maxToken)}) })
	freqs := make(index.TokenFrequencies, len(bounds)/2+4)
	var slab []index.TokenFreq
	for i, b := range bounds {
		key := keys[b[0]:b[1]]
		if tf, ok := freqs[key]; ok {
			tf.SetFrequency(tf.Frequency() + 1)
			continue
		}
		if len(slab) == cap(slab) {
			slab = make([]index.TokenFreq, 0, min(len(bounds)-i, 32))
		}
		slab = append(slab, index.TokenFreq{Term: lower[b[0]:b[1]:b[1]]})
		tf := &slab[len(slab)-1]
		tf.SetFrequency(1)
		freqs[key] = tf
	}
	n := len(bounds)
	*bp = bounds
	boundsPool.Put(bp)
	return n, freqs
}

// boundsPool recycles the word bounds textFreqs collects.
var boundsPool = sync.Pool{New: func() any { return new([][2]int) }}

// eventWords yields each word of an event's text as the index keeps it:
// lowercased, at most maxToken bytes, in order, repeats included. ASCII
// text takes asciiWords' path; anything else the analyzer's. A word is
// valid only until the next is yielded.
func (a *analyzer) eventWords(text string) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		if !isASCII(text) {
			for _, t := range a.eventStream(text) {
				if !yield(t.Term) {
					return
				}
			}
			return
		}
		bp := lowerPool.Get().(*[]byte)
		defer lowerPool.Put(bp)
		lower := append((*bp)[:0], text...)
		*bp = lower
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		// asciiWords' loop, yielding as it goes
		stop := false
		asciiWords(lower, func(start, end int) {
			if !stop && !yield(lower[start:min(end, start+maxToken)]) {
				stop = true
			}
		})
	}
}

// lowerPool recycles the lowercased copies eventWords makes.
var lowerPool = sync.Pool{New: func() any { return new([]byte) }}

// EventWords yields each word of an event's text as the index keeps it
// (lowercased, at most maxToken bytes), in order, repeats included; a
// word is valid only until the next is yielded.
func EventWords(text string) iter.Seq[[]byte] { return queryAnalyzer.eventWords(text) }
