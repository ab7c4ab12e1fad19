package evidence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable makes evidence text safe to put on a terminal: log content is
// written by the agent under investigation and may carry escape sequences
// that would move the cursor, retitle the window or hide lines. Control
// characters become visible escapes (\x1b, \n, \t), invalid UTF-8 becomes
// U+FFFD, and the result is one line. A backslash becomes \\, so that
// the four characters \x1b the agent wrote read differently from an
// escape it actually sent. Escaping twice doubles the backslashes: apply
// it once, where text meets the terminal.
func Printable(s string) string { return printable(s, true) }

// PrintableMessage is Printable for cordon's own messages (an error, a
// reject reason) rather than evidence: the same, except that a backslash
// stays as it is. Such a message quotes what it cites with %q, which has
// already written a backslash as \\ and a control as \x1b, or with
// Printable, whose output this leaves unchanged; escaping the backslash
// again would double every escape in it. A value a message writes bare
// (%s) is still made safe, though a literal \x1b in it reads as an escape.
func PrintableMessage(s string) string { return printable(s, false) }

func printable(s string, backslash bool) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 || backslash && c == '\\' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteRune('\uFFFD')
		case r == '\\' && backslash:
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&0xf])
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r):
			// Invisible format characters (bidi overrides, zero-width
			// joiners, Unicode tag characters) can disguise a command line
			// or hide instructions in plain sight.
			b.WriteString(`\u{`)
			b.WriteString(strings.ToLower(strings.TrimLeft(hex6(r), "0")))
			b.WriteString(`}`)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func hex6(r rune) string {
	const digits = "0123456789ABCDEF"
	return string([]byte{digits[r>>20&0xf], digits[r>>16&0xf], digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}

// PrintableLines is Printable for text of several lines (command output, a
// note): each line is made safe and the line breaks are kept.
func PrintableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return strings.Join(lines, "\n")
}
