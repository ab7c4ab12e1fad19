package evidence

import (
	"math/rand"
	"strings"
	"testing"
)

// containsFold answers as trying every place of s does, on random ASCII
// texts and words of letters in both cases, digits and punctuation, the
// word's first byte often repeated in the text, words longer than the
// text and the empty word; outside ASCII it says maybe.
func TestContainsFoldIsEveryPlaceTried(t *testing.T) {
	everyPlace := func(s, sub string) bool {
		for i := 0; i+len(sub) <= len(s); i++ {
			j := 0
			for j < len(sub) && lower(s[i+j]) == sub[j] {
				j++
			}
			if j == len(sub) {
				return true
			}
		}
		return false
	}
	r := rand.New(rand.NewSource(5))
	const alphabet = "aAbBsS-_./0 "
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[r.Intn(len(alphabet))])
		}
		return b.String()
	}
	yes := 0
	for range 50000 {
		s, sub := word(r.Intn(24)), word(r.Intn(4))
		if r.Intn(2) == 0 {
			sub = strings.ToLower(sub)
		}
		want := everyPlace(s, sub)
		if got := containsFold(s, sub); got != want {
			t.Fatalf("containsFold(%q, %q) = %v, want %v", s, sub, got, want)
		}
		if want {
			yes++
		}
	}
	if yes < 5000 || yes > 45000 {
		t.Fatalf("%d of 50000 contain their word: the check needs both answers", yes)
	}
	if !containsFold("ſecret", "secret") || !containsFold("x", "é") {
		t.Error("outside ASCII containsFold must say maybe")
	}
}

// isASCII, eight bytes at a time, finds a byte of 0x80 or more wherever
// it is, in strings and byte slices of every length around eight's
// multiples.
func TestIsASCIIFindsEveryHighByte(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for n := range 40 {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Intn(0x80))
		}
		if !isASCII(b) || !isASCII(string(b)) {
			t.Fatalf("%q is ASCII", b)
		}
		for at := range n {
			c := b[at]
			b[at] = byte(0x80 + r.Intn(0x80))
			if isASCII(b) || isASCII(string(b)) {
				t.Fatalf("%q (a high byte at %d of %d) taken for ASCII", b, at, n)
			}
			b[at] = c
		}
	}
}
