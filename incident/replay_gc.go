package incident

import (
	"os"
	"runtime/debug"
	"sync"
)

// replayGCPercent is the collector's target while a replay runs. A replay
// allocates about 25 GB over a million events and keeps what its pass
// holds (170 MB at the end of the bench incident): with the default
// target (100) the heap grows to twice that, with what the collection
// running concurrently has not freed yet, and the anonymous resident set
// peaked at 560 MB; at 50 it peaked at 390 MB, for about 6% more CPU
// (docs/performance.md). The cost grows with the heap the pass holds,
// never past what the collector can keep up with: no limit is set that
// a larger incident could exceed. GOGC, when set, wins.
const replayGCPercent = 50

var replayGC struct {
	sync.Mutex
	n    int // replays running
	prev int // the target before the first
}

// tuneReplayGC applies replayGCPercent for the length of a replay and
// returns what restores the previous target once no replay runs.
func tuneReplayGC() func() {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	replayGC.Lock()
	defer replayGC.Unlock()
	if replayGC.n == 0 {
		replayGC.prev = debug.SetGCPercent(replayGCPercent)
	}
	replayGC.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			replayGC.Lock()
			defer replayGC.Unlock()
			if replayGC.n--; replayGC.n == 0 {
				debug.SetGCPercent(replayGC.prev)
			}
		})
	}
}
