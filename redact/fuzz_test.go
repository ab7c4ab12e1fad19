package redact

import (
	"testing"
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
