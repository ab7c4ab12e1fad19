package incident

import (
	"context"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// A replay allocates about 4.3 GiB over a million events and keeps what its
// pass holds (170 MB at the end of the bench incident): at the default
// collector target the heap grows to twice what is live, with what a
// collection running concurrently has not freed yet, and the anonymous
// resident set of a 1M-event replay peaked at 520-560 MB. While a replay
// runs, a soft memory limit holds the Go runtime's memory at
// replayMemoryLimit, or at replayHeadroom times the heap live at the last
// collection when that is more: a pass that holds more than the limit
// allows (a larger incident) gets headroom as at GOGC=50 and never makes
// the collector run back to back. Measured on the bench incident (with
// the collection at the end of Scan): peak RssAnon 383-388 MB, about 7%
// more CPU than the default target, figures in docs/performance.md. GOGC
// or GOMEMLIMIT, when set, win: nothing is changed.
const (
	replayMemoryLimit = 384 << 20
	replayHeadroom    = 1.5
	// replayCheck is how often (in events) the limit follows the heap
	replayCheck = 1 << 16
)

var replayGC struct {
	sync.Mutex
	n     int   // replays running
	prev  int64 // the limit before the first
	limit int64 // the limit set
}

// tuneReplayGC sets the soft limit for a replay; follow raises it with
// the live heap, end restores the previous limit once no replay runs.
func tuneReplayGC() (follow, end func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}, func() {}
	}
	replayGC.Lock()
	defer replayGC.Unlock()
	if replayGC.n == 0 {
		replayGC.prev = debug.SetMemoryLimit(replayMemoryLimit)
		replayGC.limit = replayMemoryLimit
	}
	replayGC.n++
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	follow = func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		want := int64(min(float64(sample[0].Value.Uint64())*replayHeadroom, math.MaxInt64/2))
		replayGC.Lock()
		defer replayGC.Unlock()
		if replayGC.n > 0 && want > replayGC.limit {
			replayGC.limit = want
			debug.SetMemoryLimit(want)
		}
	}
	var once sync.Once
	end = func() {
		once.Do(func() {
			replayGC.Lock()
			defer replayGC.Unlock()
			if replayGC.n--; replayGC.n == 0 {
				debug.SetMemoryLimit(replayGC.prev)
			}
		})
	}
	return follow, end
}

// replay adds every event of src to p, in time order, calling follow (of
// tuneReplayGC) every replayCheck events.
func replay(ctx context.Context, p *detect.Pass, src detect.Source, follow func()) error {
	return p.ReplayVia(ctx, src, func(p *detect.Pass, ev *evidence.Event) error {
		if p.Events()%replayCheck == 0 {
			follow()
		}
		return p.Add(ev)
	})
}
