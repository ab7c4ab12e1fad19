package redact

import (
	"encoding/base64"
	"strings"
	"testing"
)

// hostileInputs are 1 MiB texts built to make the new forms work hardest:
// base64 runs that all decode to text, a table tool's name before every
// word, an @ after every user:password, long options named like secrets.
func hostileInputs() map[string]string {
	const size = 1 << 20
	fill := func(unit string) string { return strings.Repeat(unit, size/len(unit)+1)[:size] }
	return map[string]string{
		"base64 text":    fill(base64.StdEncoding.EncodeToString([]byte("an ordinary line of text, nothing to hide here")) + " "),
		"tool names":     fill("mysql -pX sshpass -p Y curl -u a:b "),
		"user:pass@host": fill("ops:Pw1@h.example.com "),
		"long options":   fill("--password X --db-pass Y --api-key Z "),
		"one long word":  fill("QWxhZGRpbjpvcGVuIHNlc2FtZQ"),
		"many @":         fill("a:b@"),
	}
}

// BenchmarkRedactHostile: redaction's cost on each hostile input, per
// byte (docs/performance.md, "Redaction per packet", records it).
func BenchmarkRedactHostile(b *testing.B) {
	for name, text := range hostileInputs() {
		b.Run(strings.ReplaceAll(name, " ", "-"), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				Redact(text, nil)
			}
		})
	}
}
