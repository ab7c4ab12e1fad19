package detect_test

import (
	"os"
	"runtime/pprof"
	"testing"
)

// writeHeapProfile writes the heap in use to the file CORDON_HEAP_PROFILE
// names, when it names one: a benchmark calls it while the pass it
// measures is still live, after a GC, so the profile shows what the pass
// holds (go tool pprof -sample_index=inuse_space FILE).
func writeHeapProfile(b *testing.B) {
	name := os.Getenv("CORDON_HEAP_PROFILE")
	if name == "" {
		return
	}
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}
