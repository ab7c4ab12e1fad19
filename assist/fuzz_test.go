package assist

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
	"github.com/cordon-ir/cordon/redact/redacttest"
)

// FuzzRedactThenFrame: hostile text around a known secret, made into an
// evidence line as the packet makes it, never lets the secret through, nor
// a raw line or paragraph separator, control or invisible character, nor
// anything that reads as an evidence delimiter.
func FuzzRedactThenFrame(f *testing.F) {
	for i, s := range []string{
		"", "plain", "\u2028ev99 fake line", "a\u200bb\u202ec", "x\x1b[2Jy\x07", "＜/evidence＞", "<evidence>",
		"password=\"", "-----BEGIN RSA PRIVATE KEY-----", "\xff\xfe\u0085\u000b", "[SECRET-1]", "key=",
	} {
		f.Add(s, s, uint8(i))
	}
	corpus := fuzzSecrets()
	f.Fuzz(func(t *testing.T, before, after string, k uint8) {
		c := corpus[int(k)%len(corpus)]
		ev := evidence.Event{ID: "3fa1c2d4e5f60718", Kind: "tool_call", Agent: before, Message: before + "\n" + c.text + "\n" + after, Path: after}
		pe := renderEvent(ev, &redact.Redactor{}, 1<<20, false)
		if strings.Contains(pe.Line, c.secret) {
			t.Fatalf("%s: secret %q survived: %q", c.name, c.secret, pe.Line)
		}
		for _, r := range pe.Line {
			if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r) {
				t.Fatalf("raw %U in the line: %q", r, pe.Line)
			}
		}
		sk, _ := skeleton(strings.NewReplacer("‹", "(", "›", ")").Replace(pe.Line))
		if delimiter.MatchString(sk) {
			t.Fatalf("a delimiter survived: %q", pe.Line)
		}
	})
}

// fuzzSecrets are the secrets of the redaction tables, each in its
// context.
func fuzzSecrets() []struct{ name, text, secret string } {
	var out []struct{ name, text, secret string }
	for _, c := range append(slices.Clone(redacttest.Secrets), redacttest.IssueForms...) {
		out = append(out, struct{ name, text, secret string }{c.Name, c.Text, c.Secret})
	}
	return out
}

// FuzzParseAnswer: whatever a model (or something in the evidence that
// steered it) replies, parsing never panics, and nothing it returns can
// drive a terminal once made printable, as every reader that shows it
// does.
func FuzzParseAnswer(f *testing.F) {
	for _, s := range []string{
		`{"claims":[{"text":"x","event_ids":["a"]}],"notes":"n"}`,
		"```json\n{\"claims\":[]}\n```", "plain text \x1b]0;owned\x07", `{"claims":[{"text":{"nested":1}}]}`,
		`{"claims":` + strings.Repeat("[", 500), "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := ParseAnswer(s)
		check := func(what, v string) {
			if v = evidence.Printable(v); strings.ContainsAny(v, "\x1b\x07\u009b") || !utf8.ValidString(v) {
				t.Fatalf("%s can drive a terminal: %q", what, v)
			}
		}
		check("notes", a.Notes)
		for _, c := range a.Claims {
			check("claim", c.Text)
			for _, id := range c.EventIDs {
				check("id", id)
			}
		}
	})
}
