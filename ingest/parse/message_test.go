package parse

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestMessageIsCutAtMaxMessage: a message longer than MaxMessage bytes is
// cut there, on a character boundary, and says so with "…"; one that fits
// is whole.
func TestMessageIsCutAtMaxMessage(t *testing.T) {
	fits := strings.Repeat("a", MaxMessage)
	if got := Message(fits); got != fits {
		t.Errorf("a message of exactly MaxMessage bytes was changed: %d bytes", len(got))
	}
	for _, long := range []string{strings.Repeat("b", 3*MaxMessage), strings.Repeat("é", MaxMessage)} {
		got := Message(long)
		body, ok := strings.CutSuffix(got, "…")
		if !ok || len(body) > MaxMessage || len(body) < MaxMessage-utf8.UTFMax || !utf8.ValidString(got) {
			t.Errorf("a %d-byte message gave %d bytes (cut mark %v, valid %v)", len(long), len(got), ok, utf8.ValidString(got))
		}
	}
}
