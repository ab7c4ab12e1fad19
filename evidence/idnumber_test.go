package evidence

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// PackID packs exactly the ids UnpackID gives back byte for byte: every
// id MakeID can give, and none of another shape (short, long, upper-case,
// not hex, a test's "e12").
func TestPackIDGivesTheIDBack(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		id := fmt.Sprintf("%016x", r.Uint64())
		if n, ok := PackID(id); !ok || UnpackID(n) != id {
			t.Fatalf("PackID(%q) = %x, %v: unpacks to %q", id, n, ok, UnpackID(n))
		}
		for _, odd := range []string{strings.ToUpper(id), id[:15], id + "0", id[:15] + "g", "e" + id[:2]} {
			if odd == id {
				continue // all digits: upper case is the id
			}
			if n, ok := PackID(odd); ok {
				t.Fatalf("PackID(%q) packs, to %x", odd, n)
			}
		}
	}
	for _, id := range []string{"", "0000000000000000", "ffffffffffffffff", "+123456789abcdef", " 123456789abcdef", "0123456789abcdeF"} {
		n, ok := PackID(id)
		if ok != (id == "0000000000000000" || id == "ffffffffffffffff") || ok && UnpackID(n) != id {
			t.Errorf("PackID(%q) = %x, %v", id, n, ok)
		}
	}
}
