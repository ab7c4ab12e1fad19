package evidence

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// anyHexID is an id as MakeID makes them, most of the time, or one of a
// shape PackID must not pack: short, long, upper-case, not hex.
func anyHexID(r *rand.Rand) string {
	hex := fmt.Sprintf("%016x", r.Uint64())
	switch r.IntN(8) {
	case 0:
		return "e" + strconv.Itoa(r.IntN(1000))
	case 1:
		return strings.ToUpper(hex)
	case 2:
		return hex[:15]
	case 3:
		return hex + "0"
	case 4:
		return hex[:15] + "g"
	}
	return hex
}

// PackID packs exactly the ids UnpackID gives back byte for byte.
func TestPackIDGivesTheIDBack(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		id := anyHexID(r)
		n, ok := PackID(id)
		if want := len(id) == 16 && strings.ToLower(id) == id && !strings.ContainsAny(id, "ghijklmnopqrstuvwxyz"); ok != want {
			t.Fatalf("PackID(%q) packs: %v, want %v", id, ok, want)
		}
		if ok && UnpackID(n) != id {
			t.Fatalf("PackID(%q) unpacks to %q", id, UnpackID(n))
		}
	}
	for _, id := range []string{"", "0000000000000000", "ffffffffffffffff", "+123456789abcdef", " 123456789abcdef", "0123456789abcdeF"} {
		n, ok := PackID(id)
		if ok != (id == "0000000000000000" || id == "ffffffffffffffff") || ok && UnpackID(n) != id {
			t.Errorf("PackID(%q) = %x, %v", id, n, ok)
		}
	}
}
