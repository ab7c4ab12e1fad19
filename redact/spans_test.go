package redact

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/redact/redacttest"
)

// TestOverlappingSecretsAreReplacedWhole: secrets found by several
// patterns that overlap, or one inside another, are replaced as one span
// from the first start to the last end: no tail of the longer one is left.
func TestOverlappingSecretsAreReplacedWhole(t *testing.T) {
	text := "key=ABCDEFGHIJ rest"
	for _, c := range []struct {
		spans []span
		want  string
	}{
		{[]span{{4, 14}, {6, 9}}, "key=[SECRET-1] rest"},  // one inside another
		{[]span{{6, 9}, {4, 14}}, "key=[SECRET-1] rest"},  // found in the other order
		{[]span{{4, 10}, {8, 14}}, "key=[SECRET-1] rest"}, // overlapping
		{[]span{{4, 8}, {10, 14}}, "key=[SECRET-1]EF[SECRET-2] rest"},
	} {
		var r Redactor
		if got := r.replaceSpans(text, c.spans); got != c.want {
			t.Errorf("spans %v: %q, want %q", c.spans, got, c.want)
		}
	}
}

// TestCasesHoldTheirSecret: every case of the shared tables holds the
// secret it says it does, and the context to keep: a case whose secret is
// not in its text would pass whatever the redactor did.
func TestCasesHoldTheirSecret(t *testing.T) {
	for _, c := range append(append([]redacttest.Case{}, redacttest.Secrets...), redacttest.IssueForms...) {
		if c.Secret == "" || !strings.Contains(c.Text, c.Secret) {
			t.Errorf("%s: the secret %q is not in the text %q", c.Name, c.Secret, c.Text)
		}
		if c.Keep != "" && !strings.Contains(c.Text, c.Keep) {
			t.Errorf("%s: the context %q is not in the text %q", c.Name, c.Keep, c.Text)
		}
	}
}
