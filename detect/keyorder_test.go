package detect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// keyOrder gives a growing map's keys in sortedKeys' order at every ask,
// whatever order they came in and however many came between two asks.
func TestKeyOrderIsSortedKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := map[string]bool{}
	var o keyOrder
	for round := range 200 {
		for range rng.IntN(40) {
			// agent and destination, as data_exfiltration keys them
			k := fmt.Sprintf("agent-%d\x00host-%d.example", rng.IntN(50), rng.IntN(400))
			if !m[k] {
				m[k] = true
				o.add(k)
			}
		}
		if got, want := o.sorted(), sortedKeys(m); !slices.Equal(got, want) {
			t.Fatalf("round %d: %d keys, want %d: %q…", round, len(got), len(want), got[:min(3, len(got))])
		}
	}
	if len(m) < 1000 {
		t.Fatalf("only %d keys made", len(m))
	}
}
