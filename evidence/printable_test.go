package evidence

import "testing"

func TestPrintable(t *testing.T) {
	cases := map[string]string{
		"plain text":             "plain text",
		"\x1b]0;owned\x07title":  `\x1b]0;owned\x07title`,
		"\x1b[2J\x1b[Hclear":     `\x1b[2J\x1b[Hclear`,
		"two\nlines\r\n":         `two\nlines\r\n`,
		"bad \xff utf8":          "bad \uFFFD utf8",
		"café ✓":                 "café ✓",
		"rm -rf /\u202e gnp.exe": `rm -rf /\u{202e} gnp.exe`,
		"c1 \u009b31m":           `c1 \x9b31m`,
	}
	for in, want := range cases {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
