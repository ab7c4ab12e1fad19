package incident

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

func memoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// A replay runs under a soft memory limit that follows the live heap up,
// restored when the last of the replays running together ends; GOGC or
// GOMEMLIMIT, when set, leave the process's settings alone.
func TestReplayMemoryLimit(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	before := memoryLimit()
	if before != math.MaxInt64 {
		t.Fatalf("a limit is already set: %d", before)
	}
	follow1, end1 := tuneReplayGC()
	_, end2 := tuneReplayGC()
	if got := memoryLimit(); got != replayMemoryLimit {
		t.Fatalf("during a replay the limit is %d, want %d", got, replayMemoryLimit)
	}
	// a live heap past the limit's share raises it, never lowers it
	keep := make([]byte, replayMemoryLimit)
	runtime.GC() // the live heap is what the last collection found
	follow1()
	runtime.KeepAlive(keep)
	if got := memoryLimit(); got < int64(float64(len(keep))*replayHeadroom) {
		t.Fatalf("with %d bytes live the limit is %d, want at least %.0f", len(keep), got, float64(len(keep))*replayHeadroom)
	}
	keep = nil
	raised := memoryLimit()
	runtime.GC()
	follow1()
	if got := memoryLimit(); got != raised {
		t.Fatalf("the limit went from %d to %d", raised, got)
	}
	end1()
	end1()
	if got := memoryLimit(); got != raised {
		t.Fatalf("with a replay still running the limit is %d, want %d", got, raised)
	}
	end2()
	if got := memoryLimit(); got != before {
		t.Fatalf("after the replays the limit is %d, want %d", got, before)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	follow, end := tuneReplayGC()
	follow()
	if got := memoryLimit(); got != before {
		t.Fatalf("with GOMEMLIMIT set the limit is %d, want it left at %d", got, before)
	}
	end()
}
