package fleet

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/nats-io/nats.go/jetstream"
)

// ArchiveSink keeps what an archive reads: Add returns once the events
// are stored (those it held already skipped, by id) and state is recorded
// with them; only then are their messages acknowledged.
type ArchiveSink interface {
	Add(ctx context.Context, events []evidence.Event, state map[string][]byte) (int, error)
}

// ArchiveConfig says what Archive reads and how it batches.
type ArchiveConfig struct {
	Reader ReaderConfig // Durable is required; Hold is set
	// Batch events are stored at once (default 5000); a partial batch
	// waits at most Interval (default 1s).
	Batch    int
	Interval time.Duration
	// Drain ends the archive once the consumer has nothing left to
	// deliver or acknowledge, instead of following the stream.
	Drain bool
}

// ArchiveResult says what an archive did.
type ArchiveResult struct {
	Stream   string      `json:"stream"`
	Consumer string      `json:"consumer"`
	Read     int64       `json:"read"`  // events handed to the store
	Added    int64       `json:"added"` // of those, new to it
	Upto     uint64      `json:"upto"`  // the last stream sequence stored
	Reader   ReaderStats `json:"reader"`
}

// ArchiveUptoKey is the state key under which Archive records the last
// stream sequence stored, for people; the consumer is what resumes.
const ArchiveUptoKey = "archive.upto"

// Archive reads the stream through a durable consumer and keeps its
// events in sink, in batches, until ctx ends (or, with Drain, the
// consumer is caught up). A message is acknowledged only after the sink
// stored every event of it: killed at any point, an archive started again
// with the same consumer is given what was not acknowledged, and the
// sink skips what it stored already, so nothing is lost or kept twice.
// A sink that fails ends the archive with its error; what was not stored
// is given again to the next run.
func Archive(ctx context.Context, js jetstream.JetStream, cfg ArchiveConfig, sink ArchiveSink) (ArchiveResult, error) {
	if cfg.Batch <= 0 {
		cfg.Batch = 5000
	}
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	rc := cfg.Reader
	rc.Hold = true
	rc.MaxAckPending = max(rc.MaxAckPending, 4*cfg.Batch)
	if rc.AckWait <= 0 {
		// Far past a batch's write: a message given again while its
		// events wait for the store is acknowledged as a copy, and lost
		// if the archive then dies before the write. It is also how long
		// a restarted archive waits for what a killed one held.
		rc.AckWait = time.Minute
	}
	r, err := NewReader(ctx, js, rc)
	if err != nil {
		return ArchiveResult{}, err
	}
	res := ArchiveResult{Stream: r.cfg.Stream, Consumer: rc.Durable}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()

	var (
		mu      sync.Mutex
		pending []Delivery
		failed  error
		full    = make(chan struct{}, 1)
	)
	flush := func(ctx context.Context) error {
		mu.Lock()
		batch := pending
		pending = nil
		mu.Unlock()
		if len(batch) == 0 {
			return nil
		}
		events := make([]evidence.Event, len(batch))
		var upto uint64
		for i, d := range batch {
			events[i] = d.Event
			upto = max(upto, d.Seq)
		}
		n, err := sink.Add(ctx, events, map[string][]byte{ArchiveUptoKey: []byte(strconv.FormatUint(upto, 10))})
		if err != nil {
			return err
		}
		for i := range batch {
			batch[i].Done()
		}
		mu.Lock()
		res.Read += int64(len(batch))
		res.Added += int64(n)
		res.Upto = max(res.Upto, upto)
		mu.Unlock()
		return nil
	}
	fail := func(err error) {
		mu.Lock()
		if failed == nil {
			failed = err
		}
		mu.Unlock()
		stop()
	}
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		tick := time.NewTicker(cfg.Interval)
		defer tick.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-full:
			case <-tick.C:
				if cfg.Drain {
					mu.Lock()
					idle := len(pending) == 0
					mu.Unlock()
					if n, err := r.Pending(runCtx); idle && err == nil && n == 0 {
						stop()
						return
					}
				}
			}
			if err := flush(runCtx); err != nil {
				fail(err)
				return
			}
		}
	}()
	err = r.Run(runCtx, func(_ context.Context, d Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		if failed != nil {
			return failed
		}
		pending = append(pending, d)
		if len(pending) >= cfg.Batch {
			select {
			case full <- struct{}{}:
			default:
			}
		}
		return nil
	})
	stop()
	<-flushed
	res.Reader = r.Stats()
	mu.Lock()
	ferr := failed
	mu.Unlock()
	if ferr != nil {
		return res, ferr
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return res, err
	}
	// what was read before the end is stored and acknowledged now
	if err := flush(context.WithoutCancel(ctx)); err != nil {
		return res, err
	}
	res.Reader = r.Stats()
	return res, nil
}
