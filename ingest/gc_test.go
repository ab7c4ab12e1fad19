package ingest

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// An ingest's memory limit is what it may add to what the process holds:
// a follow's round runs beside a detectors' pass that outgrows any fixed
// limit, and a limit under the heap held makes the collector run back to
// back. Nor is it ever tighter than the default target (twice the heap
// held): with more than ingestMemoryLimit held, the held heap plus that
// limit made the collector run more often than the default would.
func TestIngestLimitIsAboveWhatIsHeld(t *testing.T) {
	t.Setenv("GOGC", "")
	was := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(was)
	for _, mib := range []int{256, ingestMemoryLimit>>20 + 128} {
		held := make([][]byte, 0, mib/4)
		for range mib / 4 {
			held = append(held, make([]byte, 4<<20))
		}
		runtime.GC()
		restore := tuneGC()
		limit := debug.SetMemoryLimit(-1)
		restore()
		runtime.KeepAlive(held)
		want := int64(mib<<20) + max(ingestMemoryLimit, int64(mib<<20))
		if limit < want {
			t.Errorf("the ingest's limit is %d MiB with %d MiB held: want at least %d MiB", limit>>20, mib, want>>20)
		}
		if got := debug.SetMemoryLimit(-1); got != was {
			t.Fatalf("the limit after the ingest is %d, was %d", got, was)
		}
	}
}

// An ingest sets the collector's target and puts it back, and never turns
// it off on the way: turning it off waits for the marking under way, and
// a following ingest's round stalled behind every collection of the
// detectors' pass. GOGC, when set, is left alone.
func TestIngestNeverTurnsTheCollectorOff(t *testing.T) {
	was := setGCPercent
	defer func() { setGCPercent = was }()
	percent := 100
	var set []int
	setGCPercent = func(p int) int {
		if p < 0 {
			t.Errorf("the ingest turned the collector off (SetGCPercent(%d))", p)
		}
		set = append(set, p)
		prev := percent
		percent = p
		return prev
	}
	t.Setenv("GOGC", "")
	restore := tuneGC()
	if percent != ingestGCPercent {
		t.Errorf("during the ingest the target is %d, want %d", percent, ingestGCPercent)
	}
	restore()
	if percent != 100 {
		t.Errorf("after the ingest the target is %d, want the 100 it was", percent)
	}
	t.Setenv("GOGC", "50")
	set = nil
	tuneGC()()
	if len(set) > 0 {
		t.Errorf("with GOGC set, the ingest set the target to %v", set)
	}
}
