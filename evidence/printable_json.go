package evidence

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf16"
)

// PrintableJSON returns encoded JSON fit for a terminal. Go's encoder
// leaves DEL, C1 controls and format characters (bidi overrides, Unicode
// tags) raw inside strings; they become \u escapes (a surrogate pair
// above U+FFFF), which decode to the same value, and invalid UTF-8
// becomes U+FFFD. Such characters only occur inside JSON strings, so no
// structure is touched.
func PrintableJSON(line []byte) []byte {
	ascii := true
	for _, c := range line {
		ascii = ascii && c < 0x7f
	}
	if ascii {
		return line
	}
	var b strings.Builder
	b.Grow(len(line) + 16)
	for _, r := range string(line) {
		switch {
		case r == 0x7f || r >= 0x80 && r < 0xa0 || unicode.Is(unicode.Cf, r):
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, hi, lo)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return []byte(b.String())
}

// PrintableJSONWriter passes each Write through PrintableJSON. A
// json.Encoder writes each value in one call, so the runes of a value are
// never split across two.
func PrintableJSONWriter(w io.Writer) io.Writer { return printableJSON{w} }

type printableJSON struct{ w io.Writer }

func (p printableJSON) Write(b []byte) (int, error) {
	if _, err := p.w.Write(PrintableJSON(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
