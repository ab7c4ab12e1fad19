package vlogs

import (
	"fmt"
	"testing"
)

// The filter never forgets an id it was given, however far it grew, and
// rules out nearly every id it was not.
func TestIDFilterNeverForgetsAnID(t *testing.T) {
	f := newIDFilter(1000)
	const n = 300_000 // past the first filter's capacity: it grows twice
	for i := 0; i < n; i++ {
		f.add(fmt.Sprintf("ev-%d", i))
	}
	if len(f.sets) < 3 {
		t.Fatalf("%d filters after %d ids, want it to have grown", len(f.sets), n)
	}
	for i := 0; i < n; i++ {
		if !f.mayHold(fmt.Sprintf("ev-%d", i)) {
			t.Fatalf("ev-%d was added and is not held", i)
		}
	}
	wrong := 0
	for i := 0; i < n; i++ {
		if f.mayHold(fmt.Sprintf("other-%d", i)) {
			wrong++
		}
	}
	if rate := float64(wrong) / n; rate > 0.005 {
		t.Errorf("%.3f%% of ids never added may be held, want under 0.5%%", 100*rate)
	}
}
