package evidence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
)

// ErrWrite: the index could not write a batch to disk (the disk is full,
// a file grew past a limit, the workspace is not writable). The batches
// that reached the disk before it are kept, each with the checkpoints
// that cover it; the later ones are lost when the store closes, so a
// re-run resumes right after what was kept. The store accepts no batch
// after it.
var ErrWrite = errors.New("index write failed")

// Batches are written "unsafe": Batch returns once they are searchable,
// and scorch's persister writes them to disk afterwards, merging several
// into one segment (fsyncing each batch on its own costs a third of the
// ingest). What the persister fails at reaches nobody by return value: it
// retries, holding back the batches' persisted callbacks, and reports the
// failure only to a callback that scorch looks up by name, in a
// process-wide registry, when an index opens. One handler is registered
// under asyncErrorsName before any index can open; it finds the store the
// error concerns by the index path scorch passes.
const asyncErrorsName = "cordon-evidence"

// writers maps the scorch path of every store open for writing to it.
var writers sync.Map

func init() {
	scorch.RegistryAsyncErrorCallbacks[asyncErrorsName] = func(err error, path string) {
		if s, ok := writers.Load(path); ok {
			s.(*bleveStore).asyncError(err)
		}
	}
}

// scorchPath is the directory scorch is given for an index at dir (as
// bleve composes it: the path its errors name).
func scorchPath(dir string) string { return dir + string(os.PathSeparator) + "store" }

// writeState is how far the store's batches got to disk.
type writeState struct {
	mu  sync.Mutex
	err error // the first write failure, wrapping ErrWrite
	// failed is closed when err is set.
	failed chan struct{}
	path   string // key in writers; "" when not registered
	seal   sync.Once
}

func newWriteState() *writeState { return &writeState{failed: make(chan struct{})} }

// register makes the store hear of its index's write failures.
func (s *bleveStore) register(dir string) {
	s.ws.path = scorchPath(dir)
	writers.Store(s.ws.path, s)
}

func (s *bleveStore) unregister() {
	if s.ws.path != "" {
		writers.CompareAndDelete(s.ws.path, s)
	}
}

// asyncError records a failure of scorch's background work. A failure to
// remove obsolete files loses nothing; anything else (writing a segment or
// the snapshot that lists it, merging segments, a panic that stopped the
// persister) means batches may never reach the disk.
func (s *bleveStore) asyncError(err error) {
	if errors.Is(err, scorch.ErrCleanup) {
		return
	}
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	if s.ws.err == nil {
		s.ws.err = fmt.Errorf("%w: %v", ErrWrite, err)
		close(s.ws.failed)
	}
}

// writable says why the store takes no batch, if it does not.
func (s *bleveStore) writable() error {
	if err := s.writeErr(); err != nil {
		return err
	}
	if s.readOnly {
		return errors.New("index is open read-only")
	}
	return nil
}

// writeErr is the first write failure, nil if none.
func (s *bleveStore) writeErr() error {
	s.ws.mu.Lock()
	defer s.ws.mu.Unlock()
	return s.ws.err
}

// persistedCallback is what a batch calls when it is on disk: onDisk (may
// be nil) runs, then done is closed, once. Scorch calls it only once the
// batch was written; an error passed anyway is a failure, which leaves
// the batch to a later call (a retry that wrote it, or confirmFromDisk).
func (s *bleveStore) persistedCallback(onDisk func(), done chan struct{}) func(error) {
	var once sync.Once
	return func(err error) {
		if err != nil {
			s.asyncError(err)
			return
		}
		once.Do(func() {
			if onDisk != nil {
				onDisk()
			}
			if done != nil {
				close(done)
			}
		})
	}
}

// Sync waits until every batch indexed so far is on disk. It returns the
// write failure (ErrWrite) that keeps one from getting there, or the
// context's error.
func (s *bleveStore) Sync(ctx context.Context) error {
	if err := s.builders.drain(); err != nil {
		return err
	}
	s.mu.RLock()
	pending := append([]unpersisted(nil), s.persisted...)
	s.mu.RUnlock()
	for _, u := range pending {
		select {
		case <-u.done:
		case <-s.ws.failed:
			select {
			case <-u.done: // written after all, on a retry
			default:
				s.seal()
				return s.writeErr()
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// unpersisted is a batch written but not yet reported on disk: done is
// closed, and confirm was called, when it is. probe is one of its event
// ids ("" for a batch of state only).
type unpersisted struct {
	done    chan struct{}
	probe   string
	confirm func(error)
}

// track adds a batch to those Sync waits for, and forgets those on disk
// already. It runs under s.mu.
func (s *bleveStore) track(u unpersisted) {
	kept := s.persisted[:0]
	for _, p := range s.persisted {
		select {
		case <-p.done:
		default:
			kept = append(kept, p)
		}
	}
	s.persisted = append(kept, u)
}

// confirmFromDisk reports on disk the batches the reopened index ro holds
// although their persisted callback never came: closing scorch after a
// failure can stop its persister between writing a snapshot and calling
// the callbacks of the batches in it. A batch is in one segment of one
// snapshot: one of its events on disk means all of them are.
func (s *bleveStore) confirmFromDisk(ro bleve.Index) {
	s.mu.RLock()
	pending := append([]unpersisted(nil), s.persisted...)
	s.mu.RUnlock()
	for _, u := range pending {
		select {
		case <-u.done:
			continue
		default:
		}
		if u.probe == "" {
			continue
		}
		req := bleve.NewSearchRequestOptions(query.NewDocIDQuery([]string{u.probe}), 1, 0, false)
		if res, err := ro.Search(req); err == nil && res.Total > 0 {
			u.confirm(nil)
		}
	}
}

// seal makes the store hold only what is on disk, after a write failure.
// Scorch keeps retrying the batches it could not write, and one may still
// land: until the index is closed, nobody can say what is stored. So the
// index is closed (its persister stops, the callbacks of what it wrote
// have run) and opened again read-only, from disk: the counts, searches
// and the ingest's tally of stored events then all agree with what a
// later run finds.
func (s *bleveStore) seal() {
	s.ws.seal.Do(func() {
		s.idxMu.Lock()
		defer s.idxMu.Unlock()
		_ = s.idx.Close()
		s.unregister()
		ro, err := bleve.OpenUsing(s.dir, map[string]interface{}{"read_only": true})
		if err != nil {
			return // reads fail on the closed index, saying so
		}
		_, _, c, err := readCountsAndDeltas(ro)
		if err != nil {
			ro.Close()
			return
		}
		s.confirmFromDisk(ro)
		s.idx = ro
		s.mu.Lock()
		s.counts = c
		s.tl, s.matchCounts = nil, nil
		s.mu.Unlock()
	})
}

// closeWait is how long Close waits for the last batch to reach disk.
const closeWait = time.Minute

// Close waits for the last batch to be on disk, then closes the index. It
// returns the write failure that kept a batch from the disk: those
// batches are lost.
func (s *bleveStore) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	err := s.Sync(ctx)
	cancel()
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w: the last batch was not on disk %s after closing began", ErrWrite, closeWait)
	}
	s.idxMu.Lock()
	var cerr error
	if !s.resting {
		cerr = s.idx.Close()
	}
	s.resting = false
	s.idxMu.Unlock()
	s.unregister()
	if err == nil {
		err = cerr
	}
	return err
}

// commit writes a batch with the base counts (when not nil) in one atomic
// step and waits until it is searchable; onDisk (may be nil) runs once it
// is on disk, and Sync waits for that. A store whose writes failed takes
// no more batches.
func (s *bleveStore) commit(b *bleve.Batch, base *Counts, onDisk func()) error {
	if err := s.writeErr(); err != nil {
		return err
	}
	if base != nil {
		raw, err := json.Marshal(base)
		if err != nil {
			return err
		}
		b.SetInternal([]byte(countsKey), raw)
	}
	done := make(chan struct{})
	cb := s.persistedCallback(onDisk, done)
	b.SetPersistedCallback(cb)
	if err := s.index().Batch(b); err != nil {
		return err
	}
	s.mu.Lock()
	s.track(unpersisted{done: done, confirm: cb})
	s.mu.Unlock()
	return nil
}
