package fleet

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// memSink is an archive's store in memory: it skips ids it holds, as a
// store does, and can fail a write after making it (a crash between the
// store's confirmation and the acknowledgements) or before.
type memSink struct {
	mu      sync.Mutex
	st      evidence.Store
	calls   int
	failAt  int  // the call that fails (0: none)
	stored  bool // the failing call stores its events first
	written []int
}

var errSink = errors.New("sink failed")

func (s *memSink) Add(ctx context.Context, events []evidence.Event, state map[string][]byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.calls == s.failAt && !s.stored {
		return 0, errSink
	}
	n, err := s.st.Index(ctx, events, state)
	s.written = append(s.written, len(events))
	if err == nil && s.calls == s.failAt {
		err = errSink
	}
	return n, err
}

func (s *memSink) total() int64 {
	return s.st.Counts().Total
}

// A sink that fails ends the archive with its error and nothing of the
// failed batch acknowledged; the archive run again holds every event once,
// whether the failed batch was stored (and is skipped by id) or not.
func TestArchiveAfterAFailedBatchHoldsEveryEventOnce(t *testing.T) {
	const n = 3000
	for _, stored := range []bool{true, false} {
		b := newBus(t, StreamConfig{})
		log := filepath.Join(t.TempDir(), "access.log")
		squidLog(t, log, n)
		b.ship(t, filepath.Join(t.TempDir(), "ship.json"), []string{log}, ShipOptions{Format: "squid"})
		sink := &memSink{st: evidence.NewMemStore(), failAt: 2, stored: stored}
		cfg := ArchiveConfig{Reader: ReaderConfig{Durable: "archive", AckWait: time.Second}, Batch: 500, Drain: true}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := Archive(ctx, b.js, cfg, sink)
		if !errors.Is(err, errSink) {
			t.Fatalf("stored=%v: the archive ended with %v, want the sink's error", stored, err)
		}
		before := sink.total()
		res, err := Archive(ctx, b.js, cfg, sink)
		cancel()
		if err != nil {
			t.Fatalf("stored=%v: the archive run again: %v", stored, err)
		}
		if got := sink.total(); got != n {
			t.Errorf("stored=%v: %d events kept, want %d", stored, got, n)
		}
		if res.Added != n-before || res.Read < res.Added {
			t.Errorf("stored=%v: the second run added %d of %d read, want %d added", stored, res.Added, res.Read, n-before)
		}
		if stored && res.Read == res.Added {
			t.Errorf("stored=%v: the stored, unacknowledged batch was not given again (read %d, added %d)", stored, res.Read, res.Added)
		}
		if up, _ := sink.st.State(ArchiveUptoKey); string(up) == "" {
			t.Errorf("stored=%v: no %s recorded", stored, ArchiveUptoKey)
		}
	}
}
