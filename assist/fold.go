package assist

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// confusables maps characters that read as the ASCII one they stand for
// but that compatibility normalization (NFKC) leaves alone: angle brackets
// and slashes from other blocks, and the Cyrillic and Greek letters that
// look Latin. ‹ and › are here on purpose: they are what neutralize turns
// a delimiter into, and a reader may still take them for one.
var confusables = map[rune]rune{
	'\u2039': '<', '\u2329': '<', '\u3008': '<', '\u27e8': '<', '\u02c2': '<', '\u1438': '<', '\u276c': '<', '\u276e': '<', '\u00ab': '<', '\u300a': '<', '\u227a': '<',
	'\u203a': '>', '\u232a': '>', '\u3009': '>', '\u27e9': '>', '\u02c3': '>', '\u1433': '>', '\u276d': '>', '\u276f': '>', '\u00bb': '>', '\u300b': '>', '\u227b': '>',
	'\u2044': '/', '\u2215': '/', '\u29f8': '/', '\u2571': '/',
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'ѵ': 'v', 'һ': 'h', 'ԛ': 'q', 'ԝ': 'w',
	'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p', 'С': 'c', 'Т': 't', 'Х': 'x', 'І': 'i', 'Ј': 'j', 'Ѕ': 's',
	'α': 'a', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x',
	'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'i', 'Κ': 'k', 'Μ': 'm', 'Ν': 'n', 'Ο': 'o', 'Ρ': 'p', 'Τ': 't', 'Υ': 'y', 'Χ': 'x',
	'ı': 'i',
}

// skeleton folds s into the form the framing checks read: compatibility
// forms (fullwidth, mathematical letters, small forms) to their ASCII
// originals, confusable brackets, slashes and letters to theirs, all lower
// case. Escapes that a JSON string or Printable leaves in the text read as
// what they stand for (see unescape): a line break written \n is a line
// break to whoever reads the text, and so it is to the checks. at[i] is
// the byte offset in s of the character folded byte i came from, and
// at[len] is len(s), so that a match in the skeleton can be mapped back to
// the text.
func skeleton(s string) (string, []int) {
	var b strings.Builder
	b.Grow(len(s))
	at := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\\' {
			if f, n := unescape(s[i:]); n > 0 {
				b.WriteString(f)
				for range len(f) {
					at = append(at, i)
				}
				i += n
				continue
			}
		}
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			b.WriteByte(c)
			at = append(at, i)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		f := foldRune(r)
		b.WriteString(f)
		for range len(f) {
			at = append(at, i)
		}
		i += size
	}
	return b.String(), append(at, len(s))
}

// unescape reads the escape at the start of s, a run of backslashes and
// what follows, however many times it was escaped (Printable doubles every
// backslash, and a JSON string inside a JSON string doubles it again). It
// returns the folded text the escape stands for and the bytes it takes, or
// 0 when s does not start with one it knows: \n and \r read as a line
// break, \t as a space, \" \' \/ as themselves, \uXXXX and \xXX as
// their character (a control as a space).
func unescape(s string) (string, int) {
	k := 0
	for k < len(s) && s[k] == '\\' {
		k++
	}
	if k == len(s) {
		return "", 0
	}
	switch c := s[k]; c {
	case 'n', 'r':
		return "\n", k + 1
	case 't':
		return " ", k + 1
	case '"', '\'', '/':
		return string(c), k + 1
	case 'u', 'x':
		digits := 4
		if c == 'x' {
			digits = 2
		}
		if k+1+digits > len(s) {
			return "", 0
		}
		v, err := strconv.ParseUint(s[k+1:k+1+digits], 16, 32)
		if err != nil {
			return "", 0
		}
		r := rune(v)
		switch {
		case r == '\n' || r == '\r':
			return "\n", k + 1 + digits
		case r < 0x20 || r == 0x7f || utf8.RuneLen(r) < 0 || r >= 0xd800 && r < 0xe000:
			return " ", k + 1 + digits
		case r < utf8.RuneSelf:
			return strings.ToLower(string(r)), k + 1 + digits
		}
		return foldRune(r), k + 1 + digits
	}
	return "", 0
}

func foldRune(r rune) string {
	if a, ok := confusables[r]; ok {
		return string(a)
	}
	f := norm.NFKC.String(string(r))
	if first, size := utf8.DecodeRuneInString(f); size == len(f) {
		if a, ok := confusables[first]; ok {
			return string(a)
		}
	}
	f = strings.Map(unicode.ToLower, f)
	// An upper-case letter may only look Latin once lowered (Cyrillic У
	// is у, which reads as y).
	if first, size := utf8.DecodeRuneInString(f); size == len(f) {
		if a, ok := confusables[first]; ok {
			return string(a)
		}
	}
	return f
}
