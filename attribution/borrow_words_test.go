package attribution

import (
	"slices"
	"testing"
)

// The words of several texts are those of the texts joined by a space,
// in order: a word never runs from one text into the next.
func TestCredentialWordsOfSeveralTexts(t *testing.T) {
	for _, c := range [][]string{
		{`curl -u px-s228:$(cat /run/secrets/p) https://x`, `PROXY_USER=px-s228 PROXY_PASS=****`},
		{"", "aws-k-231"},
		{"tok_1", ""},
		{"a-b", "c_d"},
		{"", ""},
	} {
		var want []string
		for w := range CredentialWords(c[0] + " " + c[1]) {
			want = append(want, w)
		}
		got := slices.Collect(CredentialWords(c...))
		if !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", c, got, want)
		}
	}
	if got := slices.Collect(CredentialWords(`echo "px-s228" 'aws-k-231',x`)); !slices.Equal(got, []string{"echo", "px-s228", "aws-k-231", "x"}) {
		t.Errorf("words: %q", got)
	}
	for range CredentialWords("a b c") {
		break // a caller that stops early is not called again
	}
}
