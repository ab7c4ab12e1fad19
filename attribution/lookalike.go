package attribution

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// confusables maps letters of other scripts that look like Latin ones to
// the letter they pass for: an agent named with a Cyrillic "а" reads as
// agent-7 on every screen. The common ones of Unicode's confusables list
// for Cyrillic and Greek, as data.
var confusables = map[rune]rune{
	// Cyrillic
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't', 'у': 'y',
	'х': 'x', 'ѕ': 's', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h', 'ɡ': 'g', 'ո': 'n',
	'А': 'a', 'В': 'b', 'Е': 'e', 'К': 'k', 'М': 'm', 'Н': 'h', 'О': 'o', 'Р': 'p', 'С': 'c', 'Т': 't', 'Х': 'x', 'І': 'i', 'Ј': 'j', 'Ѕ': 's',
	// Greek
	'α': 'a', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x',
	'Α': 'a', 'Β': 'b', 'Ε': 'e', 'Ζ': 'z', 'Η': 'h', 'Ι': 'i', 'Κ': 'k', 'Μ': 'm', 'Ν': 'n', 'Ο': 'o', 'Ρ': 'p', 'Τ': 't', 'Υ': 'y', 'Χ': 'x',
	// digits and dashes that pass for ASCII ones
	'‐': '-', '‑': '-', '‒': '-', '–': '-', '—': '-', '−': '-', '⁃': '-',
	'Ɩ': 'l', 'ǀ': 'l', 'ӏ': 'l',
}

// Skeleton is what a name looks like: compatibility forms folded
// (fullwidth letters, ligatures), invisible characters dropped, letters of
// other scripts that pass for Latin ones mapped to them, and one case.
// Two names with one skeleton cannot be told apart by eye.
func Skeleton(name string) string {
	var b strings.Builder
	for _, r := range norm.NFKC.String(name) {
		if invisible(r) {
			continue
		}
		if c, ok := confusables[r]; ok {
			r = c
		}
		b.WriteRune(unicode.ToLower(r))
	}
	s := b.String()
	// "rn" passes for "m", "0" for "o", "1" for "l": only where the name
	// differs from another by nothing else (LookAlikes compares skeletons)
	return strings.NewReplacer("rn", "m", "vv", "w").Replace(s)
}

// invisible says a character draws nothing or reorders what does.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Mn, r) && r >= 0x300 && r < 0x370 || r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0
}

// Revealed writes a name so that a person can tell it from its look-alikes:
// every character outside printable ASCII as <U+XXXX>, with its script.
func Revealed(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r < 0x80 && unicode.IsPrint(r) {
			b.WriteRune(r)
			continue
		}
		fmt.Fprintf(&b, "<U+%04X%s>", r, script(r))
	}
	return b.String()
}

func script(r rune) string {
	for _, s := range []struct {
		name string
		t    *unicode.RangeTable
	}{{"Cyrillic", unicode.Cyrillic}, {"Greek", unicode.Greek}, {"Armenian", unicode.Armenian}, {"Han", unicode.Han}} {
		if unicode.Is(s.t, r) {
			return " " + s.name
		}
	}
	if invisible(r) {
		return " invisible"
	}
	return ""
}

// Plain says a name is printable ASCII: nothing in it can pass for
// something else.
func Plain(name string) bool { return Revealed(name) == name }

// LookAlikes maps each name that looks like another to the others it
// looks like (sorted), for names that differ by look-alike or invisible
// characters, or mixed scripts; names with no look-alike are absent.
func LookAlikes(names []string) map[string][]string {
	by := map[string][]string{}
	for _, n := range names {
		if n != "" {
			k := Skeleton(n)
			by[k] = append(by[k], n)
		}
	}
	out := map[string][]string{}
	for _, group := range by {
		if len(group) < 2 {
			continue
		}
		sort.Strings(group)
		for _, n := range group {
			for _, o := range group {
				if o != n {
					out[n] = append(out[n], o)
				}
			}
		}
	}
	return out
}
