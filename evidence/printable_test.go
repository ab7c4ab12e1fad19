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

// A Unicode tag character above U+FFFF was escaped as \ue0041, which JSON
// reads as U+E000 and "41": it must be a surrogate pair.
func TestPrintableJSONAstralFormatCharacter(t *testing.T) {
	cases := map[string]string{
		`{"m":"plain"}`:                   `{"m":"plain"}`,
		"{\"m\":\"a\u009b2J \u202ex\"}":   `{"m":"a\u009b2J \u202ex"}`,
		"{\"m\":\"tag \U000e0041\"}":      `{"m":"tag \udb40\udc41"}`,
		"{\"m\":\"del \x7f, caf\u00e9\"}": "{\"m\":\"del \\u007f, caf\u00e9\"}",
	}
	for in, want := range cases {
		if got := string(PrintableJSON([]byte(in))); got != want {
			t.Errorf("PrintableJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

// A literal \x1b]0;… in evidence looked the same as an escaped real ESC:
// the backslash itself is escaped, so the two read differently.
func TestPrintableLiteralBackslashSequence(t *testing.T) {
	literal, real := Printable(`\x1b]0;owned`), Printable("\x1b]0;owned")
	if literal == real || literal != `\\x1b]0;owned` || real != `\x1b]0;owned` {
		t.Errorf("literal %q, real %q", literal, real)
	}
	if got := Printable(`C:\temp a\\b`); got != `C:\\temp a\\\\b` {
		t.Errorf("backslashes %q", got)
	}
}
