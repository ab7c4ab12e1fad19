package serve

import (
	"context"
	"io"
	"testing"
	"time"
)

// TestAskBackground: the answer sets light or dark and is not read as
// keys; no answer is bounded and keys typed meanwhile reach the console;
// an answer after the deadline is dropped, not typed.
func TestAskBackground(t *testing.T) {
	cases := []struct {
		name, reply string
		dark, ok    bool
		keys        string
	}{
		{"light", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22cj", false, true, "j"},
		{"dark, BEL", "\x1b]11;rgb:1e1e/1e1e/2e2e\x07\x1b[?1;2c", true, true, ""},
		{"two digits", "q\x1b]11;rgb:ee/ee/ee\x07\x1b[?6c", false, true, "q"},
		{"attributes only", "\x1b[?62;22c", true, false, ""},
		{"silent", "", true, false, "k"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, w := io.Pipe()
			defer w.Close()
			in := newSessionInput(context.Background(), r)
			go func() {
				if c.reply != "" {
					io.WriteString(w, c.reply)
				}
			}()
			start := time.Now()
			dark, ok := in.askBackground(io.Discard, 300*time.Millisecond)
			if dark != c.dark || ok != c.ok {
				t.Errorf("dark %v answered %v, want %v %v", dark, ok, c.dark, c.ok)
			}
			if c.name == "silent" {
				if time.Since(start) < 300*time.Millisecond {
					t.Errorf("gave up after %s", time.Since(start))
				}
				go io.WriteString(w, "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c"+c.keys)
			}
			if c.keys != "" {
				buf := make([]byte, 64)
				n, err := in.Read(buf)
				if err != nil || string(buf[:n]) != c.keys {
					t.Errorf("console reads %q %v, want %q", buf[:n], err, c.keys)
				}
			}
		})
	}
}
