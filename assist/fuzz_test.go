package assist

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/evidence"
)

// FuzzRedact: redaction never panics on hostile text, is stable (the same
// text gives the same output with a fresh redactor), and redacting its own
// output finds nothing more to hide.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"AKIAIOSFODNN7EXAMPLE aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl",
		"https://user:hunter2@example.com/x?token=abc123def456ghi789",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
		"ghp_0123456789abcdefghijABCDEFGHIJklmnop xoxb-1234-5678-abcdefghijklmnop",
		"password: \"\\u0000\x1b[2J\"", "", "\xff\xfe",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Redact(s, &Redactor{})
		if again := Redact(s, &Redactor{}); again != out {
			t.Fatalf("not stable: %q then %q", out, again)
		}
		r := &Redactor{}
		if twice := Redact(out, r); twice != out || r.Count() != 0 {
			t.Fatalf("redacting the output again changed it (%d more): %q -> %q", r.Count(), out, twice)
		}
	})
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
