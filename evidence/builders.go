package evidence

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/blevesearch/bleve/v2"
)

// Bleve builds each batch's segment on the goroutine that hands it the
// batch, and that build was the one stage of an ingest that ran on one
// core. So batches are built by several builders at once (one core fewer
// than GOMAXPROCS, the other one reading, parsing and merging; at least
// one, at most maxBuilders), and may become searchable in any order. (On
// two cores a second builder kept both busy but made each event cost as
// much more CPU as it gained: docs/performance.md.)
// Two things keep that from losing or double-counting an event after a
// crash:
//
//   - A batch's counts travel with its events: each batch writes them as a
//     delta under one of the delta keys (one per builder), in the same
//     atomic batch. A fold, written once every earlier batch is in the
//     index, adds the deltas of the batches it covers to the base counts
//     and deletes their keys. An index holds the base plus whichever deltas
//     are left, and Open adds them up.
//   - Checkpoints (the batch's state) are written by the folds, in the order
//     the batches were given, so one never covers a batch that is not in
//     the index. A crash may leave events in the index past the last
//     checkpoint: the re-run reads them again and skips them by id, and
//     their counts are already in the deltas.
//
// Ids of batches not yet searchable are kept apart, so that a later batch
// holding one of them skips it as it would skip an id in the index.
const maxBuilders = 8

// deltaKey is the internal key of the counts a batch built in slot i adds.
func deltaKey(i int) []byte { return []byte(countsKey + ":delta:" + strconv.Itoa(i)) }

// builders is the state of the batches being built.
type builders struct {
	slots chan int // free delta keys; taking one is taking a builder

	mu      sync.Mutex
	next    uint64                         // sequence number of the next batch
	flying  map[uint64]map[string]struct{} // ids of the batches not yet searchable
	waiting map[uint64]*built              // searchable, not yet folded
	folded  uint64                         // batches before it are folded
	err     error                          // the first batch that failed
	failed  chan struct{}                  // closed when err is set
	running sync.WaitGroup

	foldMu sync.Mutex // one fold at a time, in order
	base   Counts     // the counts the folds wrote, under foldMu
}

// built is a searchable batch waiting for its fold.
type built struct {
	slot   int
	delta  Counts
	state  map[string][]byte
	stored func() // for a batch of no new event, run when its fold is on disk
	// base, for a batch that wrote its own state and counts (stage), is
	// the base counts it wrote.
	base *Counts
}

func newBuilders(n int) *builders {
	if n <= 0 {
		n = runtime.GOMAXPROCS(0) - 1
	}
	n = max(1, min(n, maxBuilders))
	b := &builders{slots: make(chan int, n), flying: map[uint64]map[string]struct{}{}, waiting: map[uint64]*built{}, failed: make(chan struct{})}
	for i := range n {
		b.slots <- i
	}
	return b
}

func (b *builders) failure() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

func (b *builders) fail(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failLocked(err)
}

func (b *builders) failLocked(err error) {
	if b.err == nil {
		b.err = err
		close(b.failed)
	}
}

// drain waits until every batch given is searchable and folded, and
// returns the first failure.
func (b *builders) drain() error {
	b.running.Wait()
	return b.failure()
}

// readCountsAndDeltas reads the base counts and any deltas left by a run
// that ended before their fold.
func readCountsAndDeltas(idx bleve.Index) (base Counts, deltas []int, total Counts, err error) {
	if base, err = readCounts(idx); err != nil {
		return
	}
	total = base.clone()
	for i := range maxBuilders {
		raw, err := idx.GetInternal(deltaKey(i))
		if err != nil {
			return Counts{}, nil, Counts{}, fmt.Errorf("read counts: %w", err)
		}
		if raw == nil {
			continue
		}
		var d Counts
		if err := json.Unmarshal(raw, &d); err != nil {
			return Counts{}, nil, Counts{}, fmt.Errorf("read counts: %w", err)
		}
		total.merge(&d)
		deltas = append(deltas, i)
	}
	return base, deltas, total, nil
}

// IndexPrepared adds the prepared events that are not yet in the store,
// with state. It returns how many are new once a builder has taken the
// batch; landed, if not nil, is called when the batch is searchable and
// stored when it is on disk, told the same number (both on another
// goroutine). Checking which ids exist costs one query per batch and is
// what keeps re-ingest of a copy, a rotated file or a crashed run from
// counting an event twice. A failure to build an earlier batch is returned
// by a later call, by Sync and by Close.
func (s *bleveStore) IndexPrepared(ctx context.Context, p *Prepared, state map[string][]byte, landed func(), stored func(fresh int)) (int, error) {
	if err := s.writable(); err != nil {
		return 0, err
	}
	bs := s.builders
	var slot int
	select {
	case slot = <-bs.slots:
	case <-bs.failed:
		return 0, bs.failure()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	bs.mu.Lock()
	if bs.err != nil {
		bs.mu.Unlock()
		bs.slots <- slot
		return 0, bs.err
	}
	seq := bs.next
	bs.next++
	others := make([]map[string]struct{}, 0, len(bs.flying))
	for _, ids := range bs.flying {
		others = append(others, ids)
	}
	bs.mu.Unlock()

	fresh, err := s.missing(ctx, p.events, others)
	if err != nil {
		s.abandon(seq, slot)
		return 0, err
	}
	b := s.index().NewBatch()
	w := &built{slot: slot, state: state}
	ids := make(map[string]struct{}, len(fresh))
	for _, i := range fresh {
		if err := b.IndexAdvanced(p.docs[i]); err != nil {
			err = fmt.Errorf("event %s: %w", p.events[i].ID, err)
			s.abandon(seq, slot)
			return 0, err
		}
		w.delta.add(&p.events[i])
		ids[p.events[i].ID] = struct{}{}
	}
	if len(fresh) > 0 {
		newGeneration(b)
	}
	if err := s.stage(seq, b, w, ids, len(fresh) > 0); err != nil {
		s.abandon(seq, slot)
		return 0, err
	}
	bs.running.Add(1)
	go func() {
		defer bs.running.Done()
		var err error
		if n := len(fresh); n > 0 {
			done := make(chan struct{})
			cb := s.persistedCallback(func() {
				if stored != nil {
					stored(n)
				}
			}, done)
			b.SetPersistedCallback(cb)
			if err = s.index().Batch(b); err == nil {
				s.mu.Lock()
				s.counts.merge(&w.delta)
				s.tl, s.matchCounts = nil, nil
				s.track(unpersisted{done: done, probe: p.events[fresh[0]].ID, confirm: cb})
				s.mu.Unlock()
			}
		} else if stored != nil {
			// Nothing of its own to write: its events are on disk when
			// the fold after every earlier batch is.
			w.stored = func() { stored(0) }
		}
		s.land(seq, w, err)
		if err == nil && landed != nil {
			landed()
		}
	}()
	return len(fresh), nil
}

// stage puts in b what a batch writes besides its events. A batch given
// when every earlier one is searchable and folded (always, with one
// builder) writes its state and the base counts it leads to itself, and
// needs no fold; any other writes its counts as a delta, and a later fold
// writes its state.
func (s *bleveStore) stage(seq uint64, b *bleve.Batch, w *built, ids map[string]struct{}, events bool) error {
	bs := s.builders
	bs.foldMu.Lock() // no fold is halfway: bs.base is what the index holds
	defer bs.foldMu.Unlock()
	bs.mu.Lock()
	inOrder := events && bs.folded == seq
	bs.flying[seq] = ids
	bs.mu.Unlock()
	if inOrder {
		next := bs.base.clone()
		next.merge(&w.delta)
		raw, err := json.Marshal(next)
		if err != nil {
			return err
		}
		b.SetInternal([]byte(countsKey), raw)
		for k, v := range w.state {
			b.SetInternal([]byte("state:"+k), v)
		}
		w.base = &next
		return nil
	}
	if events {
		raw, err := json.Marshal(w.delta)
		if err != nil {
			return err
		}
		b.SetInternal(deltaKey(w.slot), raw)
	}
	return nil
}

// abandon ends a batch that never reached a builder, and whose caller is
// told so: nothing of it is written, its state included, and the batches
// after it fold without it.
func (s *bleveStore) abandon(seq uint64, slot int) {
	s.land(seq, &built{slot: slot}, nil)
}

// land records that batch seq is searchable (or failed), and folds every
// batch it completes the run of.
func (s *bleveStore) land(seq uint64, b *built, err error) {
	bs := s.builders
	bs.foldMu.Lock()
	defer bs.foldMu.Unlock()
	bs.mu.Lock()
	delete(bs.flying, seq)
	if err != nil {
		bs.failLocked(fmt.Errorf("index batch: %w", err))
	}
	if bs.err != nil {
		// No later state can be written in order: nothing more is folded.
		bs.mu.Unlock()
		bs.slots <- b.slot
		return
	}
	bs.waiting[seq] = b
	var run []*built
	for {
		w, ok := bs.waiting[bs.folded]
		if !ok {
			break
		}
		delete(bs.waiting, bs.folded)
		run = append(run, w)
		bs.folded++
	}
	bs.mu.Unlock()
	if len(run) == 0 {
		return
	}
	if err := s.fold(run); err != nil {
		bs.fail(err)
	}
	for _, w := range run {
		bs.slots <- w.slot
	}
}

// fold writes the state of a run of searchable batches, in order, and
// moves their deltas into the base counts, in one batch. It runs under
// foldMu.
func (s *bleveStore) fold(run []*built) error {
	bs := s.builders
	if run[0].base != nil { // wrote its own: the first of its run
		bs.base = *run[0].base
		if run = run[1:]; len(run) == 0 {
			return nil
		}
	}
	next := bs.base.clone()
	b := s.index().NewBatch()
	changed, writes := false, false
	var onDisk []func()
	for _, w := range run {
		for k, v := range w.state {
			b.SetInternal([]byte("state:"+k), v)
			writes = true
		}
		if w.delta.Total > 0 {
			next.merge(&w.delta)
			b.DeleteInternal(deltaKey(w.slot))
			changed = true
		}
		if w.stored != nil {
			onDisk = append(onDisk, w.stored)
		}
	}
	if !changed && !writes && len(onDisk) == 0 {
		return nil
	}
	var base *Counts
	if changed {
		base = &next
	}
	err := s.commit(b, base, func() {
		for _, f := range onDisk {
			f()
		}
	})
	if err != nil {
		return fmt.Errorf("index batch: %w", err)
	}
	bs.base = next
	return nil
}

// foldLeftovers folds the deltas a run left when it ended before their
// fold (a crash), so that the builders start from the base alone.
func (s *bleveStore) foldLeftovers(total Counts, deltas []int) error {
	b := s.index().NewBatch()
	for _, i := range deltas {
		b.DeleteInternal(deltaKey(i))
	}
	if err := s.commit(b, &total, nil); err != nil {
		return fmt.Errorf("fold counts: %w", err)
	}
	return nil
}
