package vlogs

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// wordsByMap is words as a map of strings gives it: the reference.
func wordsByMap(texts ...string) string {
	var all []string
	seen := map[string]bool{}
	for _, t := range texts {
		for w := range evidence.EventWords(t) {
			if !seen[string(w)] {
				seen[string(w)] = true
				all = append(all, string(w))
			}
		}
	}
	return strings.Join(all, "\n")
}

// A record's words are the distinct words of its texts in the order met,
// one per line, whatever the record before left in the pooled set: few
// words, repeats, and more than the table first holds.
func TestWordsAreDistinctInOrder(t *testing.T) {
	rnd := rand.New(rand.NewSource(3))
	vocab := []string{"GET", "get", "pypi.org", "a.b", "10.0.3.7", "x", "_", "Bearer", "token", "café"}
	for i := range 3000 {
		vocab = append(vocab, "w"+strings.Repeat("z", i%7)+string(rune('a'+i%26))+strings.Repeat("q", i/26))
	}
	for i := range 500 {
		n := rnd.Intn(3) + 1
		texts := make([]string, n)
		for j := range texts {
			k := rnd.Intn(200)
			if i%50 == 0 {
				k = rnd.Intn(5000) // a big record, then small ones again
			}
			var b strings.Builder
			for range k {
				b.WriteString(vocab[rnd.Intn(min(len(vocab), 20+i*6))])
				b.WriteByte(" ,/"[rnd.Intn(3)])
			}
			texts[j] = b.String()
		}
		if got, want := words(texts...), wordsByMap(texts...); got != want {
			t.Fatalf("record %d: words\n%.200q\nwant\n%.200q", i, got, want)
		}
	}
	if got := words(); got != "" {
		t.Errorf("no texts: %q", got)
	}
}
