package ingest

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// An ingest's memory limit is what it may add to what the process holds:
// a follow's round runs beside a detectors' pass that outgrows any fixed
// limit, and a limit under the heap held makes the collector run back to
// back.
func TestIngestLimitIsAboveWhatIsHeld(t *testing.T) {
	t.Setenv("GOGC", "")
	was := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(was)
	held := make([][]byte, 0, 64)
	for range 64 {
		held = append(held, make([]byte, 4<<20))
	}
	runtime.GC()
	restore := tuneGC()
	limit := debug.SetMemoryLimit(-1)
	restore()
	runtime.KeepAlive(held)
	if want := int64(256<<20) + ingestMemoryLimit; limit < want {
		t.Fatalf("the ingest's limit is %d MiB with 256 MiB held: want at least %d MiB", limit>>20, want>>20)
	}
	if got := debug.SetMemoryLimit(-1); got != was {
		t.Fatalf("the limit after the ingest is %d, was %d", got, was)
	}
}
