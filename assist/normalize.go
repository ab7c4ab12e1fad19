package assist

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalize takes out of text what a reader cannot see but a pattern
// would trip on: zero-width and bidi characters (Unicode format
// characters), terminal escape sequences and other control characters
// (tab and line breaks stay). A token split by any of them ("ghp_ab\u200bcd")
// is matched whole. What was taken out is said at the end of the text, so
// that the model still learns the evidence hid something.
func normalize(text string) string {
	if !needsNormalizing(text) {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	removed := 0
	for i := 0; i < len(text); {
		if n := escapeSequence(text[i:]); n > 0 {
			i += n
			removed++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteByte(text[i])
			i++
			continue
		}
		i += size
		if invisible(r) {
			removed++
			continue
		}
		b.WriteRune(r)
	}
	if removed == 0 {
		return text
	}
	b.WriteString(" [" + strconv.Itoa(removed) + " invisible or control characters removed]")
	return b.String()
}

func needsNormalizing(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f || c >= 0x80 {
			return true
		}
	}
	return false
}

// invisible: a control other than tab and line breaks, or a format
// character (zero-width space and joiners, bidi overrides and isolates,
// the byte-order mark, soft hyphen, tag characters).
func invisible(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Bidi_Control, r)
}

// escapeSequence is the length of the terminal escape sequence s starts
// with (CSI "ESC [ ... final", OSC "ESC ] ... BEL or ESC \", or ESC and one
// character), or 0.
func escapeSequence(s string) int {
	if len(s) < 2 || s[0] != 0x1b {
		return 0
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s) && i < 64; i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7e {
				return i + 1
			} else if c < 0x20 || c > 0x7e {
				break
			}
		}
		return 0
	case ']':
		for i := 2; i < len(s) && i < 512; i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return 0
	}
	if c := s[1]; c >= 0x20 && c < 0x7f {
		return 2
	}
	return 0
}
