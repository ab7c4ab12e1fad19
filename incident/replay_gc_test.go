package incident

import (
	"runtime/debug"
	"testing"
)

func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// A replay runs with the collector's target at replayGCPercent, restored
// when the last of the replays running together ends; GOGC wins.
func TestReplayGCTarget(t *testing.T) {
	t.Setenv("GOGC", "")
	before := gcPercent()
	if before == replayGCPercent {
		t.Fatalf("the target is already %d", before)
	}
	end1 := tuneReplayGC()
	end2 := tuneReplayGC()
	if got := gcPercent(); got != replayGCPercent {
		t.Fatalf("during a replay the target is %d, want %d", got, replayGCPercent)
	}
	end1()
	end1()
	if got := gcPercent(); got != replayGCPercent {
		t.Fatalf("with a replay still running the target is %d, want %d", got, replayGCPercent)
	}
	end2()
	if got := gcPercent(); got != before {
		t.Fatalf("after the replays the target is %d, want %d", got, before)
	}
	t.Setenv("GOGC", "200")
	end := tuneReplayGC()
	if got := gcPercent(); got != before {
		t.Fatalf("with GOGC set the target is %d, want it left at %d", got, before)
	}
	end()
}
