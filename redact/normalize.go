package redact

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// normalize takes out of text what a reader cannot see but a pattern
// would trip on: zero-width and bidi characters (Unicode format
// characters), terminal escape sequences and other control characters
// (tab and line breaks stay), raw or written out as escapes; invalid
// UTF-8 becomes U+FFFD. A token split by any of them ("ghp_ab\u200bcd") is
// matched whole. What was taken out is said at the end of the text, so
// that the model still learns the evidence hid something.
func normalize(text string) string {
	text, written := unescapeInvisible(text)
	if !needsNormalizing(text) {
		if written > 0 {
			return text + removedNote(written)
		}
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	removed, replaced := written, false
	for i := 0; i < len(text); {
		if n := escapeSequence(text[i:]); n > 0 {
			i += n
			removed++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size <= 1 {
			// U+FFFD, as Printable would make it: kept as a byte, it could
			// join the byte after a removed character into a new one.
			b.WriteRune(utf8.RuneError)
			i++
			replaced = true
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
		if replaced {
			return b.String()
		}
		return text
	}
	b.WriteString(removedNote(removed))
	return b.String()
}

func removedNote(n int) string {
	return " [" + strconv.Itoa(n) + " invisible or control characters removed]"
}

// writtenInvisible is an invisible character or terminal escape written
// out as an escape rather than sent raw, as a JSON string or a shell
// printf carries it: \u200b, \u202e, \ufeff, \x1b[0m, \u001b[31m,
// \033[0m, \e[0m. A token split by one is split all the same.
var writtenInvisible = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\\u(?:200[b-f]|202[a-e]|206[0-4]|2066|2067|2068|2069|feff|00ad)|(?:\\x1b|\\u001b|\\033|\\e)\[[0-9;?]*[a-z]`)
})

// unescapeInvisible takes out written-out invisible characters, again
// until none is left (taking one out can join the halves of another), and
// says how many it took out.
func unescapeInvisible(text string) (string, int) {
	n := 0
	for range 8 {
		if !strings.Contains(text, `\`) {
			break
		}
		var b strings.Builder
		last, took := 0, 0
		for _, loc := range writtenInvisible().FindAllStringIndex(text, -1) {
			// \\u200b is a backslash and the text u200b, not an escape
			esc := 0
			for i := loc[0] - 1; i >= 0 && text[i] == '\\'; i-- {
				esc++
			}
			if esc%2 == 1 {
				continue
			}
			b.WriteString(text[last:loc[0]])
			last = loc[1]
			took++
		}
		if took == 0 {
			break
		}
		b.WriteString(text[last:])
		text, n = b.String(), n+took
	}
	return text, n
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
