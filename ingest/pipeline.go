package ingest

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// writer hands batches to the store on its own goroutine, in the order
// they were sent, while the caller reads, parses and prepares the next
// one; the store builds several at once (evidence.Preparer). Each batch's
// rejects are durable before it is handed over, and its checkpoint is
// written once it and every earlier batch are in the index, so a crash
// resumes exactly where it always did.
type writer struct {
	ctx     context.Context
	store   evidence.Store
	prep    evidence.Preparer // nil when the store cannot prepare ahead
	rejects RejectLog
	taken   func(events, replaced []evidence.Event)

	jobs chan job
	wg   sync.WaitGroup

	mu  sync.Mutex
	err error // the first failure; later batches are dropped
	// frozen ends the stored bookkeeping: the results were reported, and
	// a batch the store writes after that (a retry that succeeded while
	// the run was ending) is left for the next run to count.
	frozen bool
	// unstored is the size of the batches indexed but not yet on disk.
	unstored int
}

// maxUnstored bounds the batches the index holds in memory for its
// persister: past it, the writer waits for them to reach the disk. Events
// of a few hundred bytes never reach it (the persister keeps up with
// them); incompressible megabyte records outran the persister and piled
// up in memory.
const maxUnstored = 64 << 20

// job is one batch on its way to the store.
type job struct {
	events   []evidence.Event
	prepared *evidence.Prepared
	rejects  []parse.Reject
	state    map[string][]byte
	bytes    int             // Size of the events
	landed   func()          // bookkeeping once the batch is searchable
	stored   func(fresh int) // once it is on disk, under the writer's lock
	// replace are later stages of requests given before (see supersede),
	// written ahead of the events; replaced is their bookkeeping.
	replace  []evidence.Event
	stager   parse.Stager
	replaced func(fresh int)
}

// queuedBatches is how many prepared batches may wait for the writer
// besides the one the sender holds until the writer takes it: each costs
// tens of megabytes of analysed documents.
const queuedBatches = 0

func newWriter(ctx context.Context, opt Options) *writer {
	w := &writer{ctx: ctx, store: opt.Store, rejects: opt.Rejects, taken: opt.Taken, jobs: make(chan job, queuedBatches)}
	w.prep, _ = opt.Store.(evidence.Preparer)
	w.wg.Add(1)
	go w.loop()
	return w
}

func (w *writer) loop() {
	defer w.wg.Done()
	for j := range w.jobs {
		if w.failed() != nil {
			continue
		}
		if err := w.write(j); err != nil {
			w.mu.Lock()
			w.err = fmt.Errorf("%w: %w", errStore, err)
			w.mu.Unlock()
		}
	}
}

func (w *writer) write(j job) error {
	if len(j.rejects) > 0 && w.rejects != nil {
		if err := w.rejects.Add(j.rejects); err != nil {
			return fmt.Errorf("write rejects: %v", err)
		}
	}
	w.mu.Lock()
	wait := w.unstored > maxUnstored
	w.mu.Unlock()
	if wait {
		if err := w.store.Sync(w.ctx); err != nil {
			return err
		}
	}
	if len(j.replace) > 0 {
		if err := w.supersede(j); err != nil {
			return err
		}
	}
	// Scorch keeps this until the batch is on disk, which may be batches
	// later: it must hold the bookkeeping only, never the events or their
	// documents.
	tally, size := j.stored, j.bytes
	w.mu.Lock()
	w.unstored += size
	w.mu.Unlock()
	stored := func(fresh int) {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.unstored -= size
		if !w.frozen {
			tally(fresh)
		}
	}
	if j.prepared != nil {
		if _, err := w.prep.IndexPrepared(w.ctx, j.prepared, j.state, j.landed, stored); err != nil {
			return err
		}
		w.took(j)
		return nil
	}
	// A store that cannot say when a batch is on disk: Run's Sync stands
	// for all of them.
	n, err := w.store.Index(w.ctx, j.events, j.state)
	if err != nil {
		return err
	}
	stored(n)
	j.landed()
	w.took(j)
	return nil
}

// took tells Options.Taken of a batch the store has taken.
func (w *writer) took(j job) {
	if w.taken != nil && len(j.events)+len(j.replace) > 0 {
		w.taken(j.events, j.replace)
	}
}

func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// send prepares a batch on the caller's goroutine and queues it. It
// returns the writer's failure, if any, so that parsing stops.
func (w *writer) send(j job) error {
	if err := w.failed(); err != nil {
		return err
	}
	if w.prep != nil {
		p, err := w.prep.Prepare(j.events)
		if err != nil {
			return fmt.Errorf("%w: %v", errStore, err)
		}
		j.prepared = p
	}
	select {
	case w.jobs <- j:
		return nil
	case <-w.ctx.Done():
		return fmt.Errorf("%w: %w", errStore, w.ctx.Err())
	}
}

// close waits for every queued batch to land and returns the first
// failure.
func (w *writer) close() error {
	close(w.jobs)
	w.wg.Wait()
	return w.failed()
}

// freeze ends the stored bookkeeping and runs read under the lock that
// guards it.
func (w *writer) freeze(read func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.frozen = true
	read()
}

// Ingest allocates fast and keeps little: with the default GC target the
// collector ran about a tenth of the time. A higher target roughly halves
// that; the soft limit holds the heap, and with the index's mapped
// segments the resident set, under 1 GiB on a million events with up to
// two cores. Each core past two adds a batch builder (evidence.Open),
// and ingestMemoryPerCore for the batches it holds.
const (
	ingestGCPercent     = 400
	ingestMemoryLimit   = 384 << 20
	ingestMemoryPerCore = 128 << 20
)

// tuneGC applies the ingest GC settings and returns what restores the
// previous ones. GOGC, or a lower limit already set (GOMEMLIMIT), wins.
// The limit is what the ingest may add to the heap the process held live
// when it began: a follow's round runs beside the detectors' pass, which
// holds more with every round, and a limit that counted it in would have
// the collector run back to back once the pass outgrew it. Nor is it
// ever less than twice the heap held, the default target's goal: these
// settings are there to make the collector run less often, and once a
// follow's pass held more than ingestMemoryLimit (a few hundred thousand
// events) the held heap plus that limit had it run more often than the
// default would (docs/performance.md, "A follow's collector held no
// tighter than the default").
//
// The target is never turned off on the way, not even to read it:
// debug.SetGCPercent(-1) waits for the collection running to finish its
// marking, and a follow's round, which calls this, stalled for as long as
// the marking of a detectors' pass took (up to 700 ms at a million
// events).
func tuneGC() func() {
	restoreGC := func() {}
	if os.Getenv("GOGC") == "" {
		gc := setGCPercent(ingestGCPercent)
		restoreGC = func() { setGCPercent(gc) }
	}
	limit := debug.SetMemoryLimit(-1) // a negative limit reads it
	held := heldLive()
	debug.SetMemoryLimit(min(limit, held+max(ingestMemoryLimit, held)+int64(max(0, runtime.GOMAXPROCS(0)-2))*ingestMemoryPerCore))
	return func() {
		restoreGC()
		debug.SetMemoryLimit(limit)
	}
}

// setGCPercent is debug.SetGCPercent (a variable for the tests).
var setGCPercent = debug.SetGCPercent

// heldLive is the heap the last collection found live, 0 before the
// first.
func heldLive() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(min(sample[0].Value.Uint64(), math.MaxInt64/4))
}
