package vlogs

import (
	"context"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// How an ingest's writes are settled: the batches sent since the last
// settling are made searchable with one flush and counted with one query
// (by the batch each record names) once this many wait or the oldest has
// waited this long, and always before Sync, Replace or Index returns;
// a store's first batch is settled at once.
const (
	settleBatches = 16
	settleAge     = 2 * time.Second
)

// prepared is a batch made into records ahead of its write: ids repeated
// in it taken once, the record lines of events[i] at body[ends[i-1]:ends[i]].
// They are built on a goroutine of their own; done is closed once they are
// (or err says why they could not be).
type prepared struct {
	batch  string
	events []evidence.Event
	body   []byte
	ends   []int
	done   chan struct{}
	err    error
}

// inflight is a batch sent and not yet counted: its checkpoint and its
// callbacks wait for the count.
type inflight struct {
	batch  string
	fresh  []evidence.Event
	state  map[string][]byte
	landed func()
	stored func(fresh int)
	sent   time.Time
}

var _ evidence.Preparer = (*Store)(nil)

// Prepare builds the records of events, the CPU-heavy half of Index, on
// a goroutine of its own: the caller goes on parsing while they are built
// and an earlier batch is written (IndexPrepared waits for them). The
// events must not change until IndexPrepared has taken the batch. At most
// the batches the caller queues are built at once.
func (s *Store) Prepare(events []evidence.Event) (*evidence.Prepared, error) {
	p := &prepared{batch: fmt.Sprintf("%s-%d", s.session, s.batches.Add(1)), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.err = s.build(p, events)
	}()
	return evidence.NewPrepared(events, p), nil
}

// build makes the records of events into p.
func (s *Store) build(p *prepared, events []evidence.Event) error {
	// room for the records at the last batch's bytes per event: growing
	// the body by doubling was a tenth of an ingest's CPU
	p.body = make([]byte, 0, int(s.perEvent.Load())*len(events)*9/8)
	p.ends = make([]int, 0, len(events))
	p.events = make([]evidence.Event, 0, len(events))
	seen := make(map[string]bool, len(events))
	for _, ev := range events {
		if seen[ev.ID] {
			continue
		}
		seen[ev.ID] = true
		ev.Time = ev.Time.UTC()
		var err error
		if p.body, err = appendRecord(p.body, s.caseID, p.batch, &ev, 0, ""); err != nil {
			return err
		}
		p.events = append(p.events, ev)
		p.ends = append(p.ends, len(p.body))
	}
	if len(p.ends) > 0 {
		s.perEvent.Store(int64(len(p.body) / len(p.ends)))
	}
	return nil
}

// Index adds the events whose ids the case does not hold yet, and returns
// once they are searchable and state is recorded.
func (s *Store) Index(ctx context.Context, events []evidence.Event, state map[string][]byte) (int, error) {
	p, err := s.Prepare(events)
	if err != nil {
		return 0, err
	}
	n, err := s.IndexPrepared(ctx, p, state, nil, nil)
	if err != nil {
		return 0, err
	}
	return n, s.Sync(ctx)
}

// IndexPrepared sends the prepared events whose ids the case does not
// hold yet and returns; they are counted, made searchable (landed) and
// their checkpoint written with the next settling. VictoriaLogs keeps
// every line it is sent, so the store decides what is new: the ids it
// knows the case holds or was sent (idFilter) rule most out at once, and
// only the few the filter may have seen are asked of the server. This is
// what keeps a batch sent again after a crash between its write and its
// checkpoint from being stored twice. VictoriaLogs drops lines it will
// not keep (outside its retention, too long) without failing the
// request, so a checkpoint never passes a batch before its records are
// counted there.
func (s *Store) IndexPrepared(ctx context.Context, p *evidence.Prepared, state map[string][]byte, landed func(), stored func(fresh int)) (int, error) {
	if s.readOnly {
		return 0, ErrReadOnly
	}
	b, ok := p.Payload().(*prepared)
	if !ok {
		return 0, fmt.Errorf("victorialogs store: a batch prepared by another store")
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	if b.err != nil {
		return 0, b.err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil {
		return 0, s.werr
	}
	if err := s.loadKnown(ctx); err != nil {
		return 0, err
	}
	held, err := s.held(ctx, b.events)
	if err != nil {
		return 0, err
	}
	f := &inflight{batch: b.batch, state: state, landed: landed, stored: stored, sent: time.Now()}
	body := b.body
	if len(held) > 0 {
		body = nil
		for i, ev := range b.events {
			if !held[ev.ID] {
				body = append(body, b.body[b.ends[i]-recordLen(b.ends, i):b.ends[i]]...)
			}
		}
	}
	f.fresh = b.events // read only from here on
	if len(held) > 0 {
		f.fresh = make([]evidence.Event, 0, len(b.events)-len(held))
		for _, ev := range b.events {
			if !held[ev.ID] {
				f.fresh = append(f.fresh, ev)
			}
		}
	}
	if len(f.fresh) > 0 {
		if err := s.beginWrite(); err != nil {
			return 0, s.fail(fmt.Errorf("%w: checkpoint: %v", evidence.ErrWrite, err))
		}
		if err := s.c.insert(ctx, body, fieldCase); err != nil {
			return 0, s.fail(fmt.Errorf("%w: %v", evidence.ErrWrite, err))
		}
	}
	for _, ev := range f.fresh {
		s.known.add(ev.ID)
		s.sent[ev.ID] = true
	}
	s.inflight = append(s.inflight, f)
	// the first batch at once: a console following the ingest has
	// something to show as soon as the index would
	if !s.settled || len(s.inflight) >= settleBatches || time.Since(s.inflight[0].sent) >= settleAge {
		if err := s.settle(ctx); err != nil {
			return 0, err
		}
	}
	return len(f.fresh), nil
}

// recordLen is the length of record i of a prepared body.
func recordLen(ends []int, i int) int {
	if i == 0 {
		return ends[0]
	}
	return ends[i] - ends[i-1]
}

// fail keeps a write's failure: nothing after it is written or
// checkpointed.
func (s *Store) fail(err error) error {
	s.werr = err
	s.inflight = nil
	return err
}

// loadKnown reads the ids the case holds into the filter, once, before
// the first write: a new case has none to read.
func (s *Store) loadKnown(ctx context.Context) error {
	if s.known != nil {
		return nil
	}
	s.mu.RLock()
	total := s.counts.Total
	s.mu.RUnlock()
	known := newIDFilter(int(2 * total))
	if total > 0 {
		err := s.c.query(ctx, s.streams(false)+" | fields id", func(row map[string]string) error {
			known.add(row["id"])
			return nil
		})
		if err != nil {
			return fmt.Errorf("which events the case holds: %w", err)
		}
	}
	s.known, s.sent = known, map[string]bool{}
	return nil
}

// held returns which of evs' ids the case holds or was sent: those the
// filter may have seen are looked up in the batches in flight, then on
// the server (where everything settled is searchable).
func (s *Store) held(ctx context.Context, evs []evidence.Event) (map[string]bool, error) {
	out := map[string]bool{}
	var ask []string
	for _, ev := range evs {
		switch {
		case !s.known.mayHold(ev.ID):
		case s.sent[ev.ID]:
			out[ev.ID] = true
		default:
			ask = append(ask, ev.ID)
		}
	}
	for _, list := range lists(ask) {
		q := s.streams(false) + " id:in(" + list + ") | uniq by (id)"
		if err := s.c.query(ctx, q, func(row map[string]string) error {
			out[row["id"]] = true
			return nil
		}); err != nil {
			return nil, fmt.Errorf("which events the case holds: %w", err)
		}
	}
	return out, nil
}

// settle makes the batches in flight searchable, counts each one's
// records, and for those that all landed, in order, adds them to the
// counts, writes their checkpoints (one write of the file for them all,
// which also ends the intent of generation.go when every batch landed)
// and tells their callers.
func (s *Store) settle(ctx context.Context) error {
	if s.werr != nil {
		return s.werr
	}
	if len(s.inflight) == 0 {
		return nil
	}
	want := map[string]int64{}
	var tags []string
	for _, f := range s.inflight {
		if len(f.fresh) > 0 {
			want[f.batch] = int64(len(f.fresh))
			tags = append(tags, f.batch)
		}
	}
	got, err := s.landed(ctx, tags, want)
	if err != nil {
		return s.fail(fmt.Errorf("%w: %v", evidence.ErrWrite, err))
	}
	// the batches that all landed, up to the first that did not: their
	// counts, then their checkpoints in one write (with a fresh
	// generation when every batch landed), then their callers
	ok, state := len(s.inflight), map[string][]byte{}
	for i, f := range s.inflight {
		if got[f.batch] != want[f.batch] {
			ok = i
			break
		}
		s.mu.Lock()
		for j := range f.fresh {
			s.counts.Add(&f.fresh[j])
		}
		s.minutes = nil
		s.mu.Unlock()
		for k, v := range f.state {
			state[k] = v
		}
	}
	var mark func(*stateDoc) bool
	if ok == len(s.inflight) && len(tags) > 0 { // flushed: what was sent is visible
		mark = s.endWrite
	}
	if err := s.state.update(state, mark); err != nil {
		return s.fail(fmt.Errorf("%w: checkpoint: %v", evidence.ErrWrite, err))
	}
	for _, f := range s.inflight[:ok] {
		if f.landed != nil {
			f.landed()
		}
		if f.stored != nil {
			f.stored(len(f.fresh))
		}
		for _, ev := range f.fresh {
			delete(s.sent, ev.ID)
		}
	}
	if ok < len(s.inflight) {
		f := s.inflight[ok]
		return s.fail(fmt.Errorf("%w: VictoriaLogs kept %d of %d events sent (check its -retentionPeriod covers the incident's dates and -insert.maxLineSizeBytes its largest record; docs/victorialogs.md)",
			evidence.ErrWrite, got[f.batch], want[f.batch]))
	}
	s.settled = s.settled || len(tags) > 0 // a batch of events, not only a checkpoint
	s.inflight = nil
	return nil
}

// landed flushes what was sent and counts the records of each batch
// named. A cluster's insert nodes pass the flush on to the storage nodes;
// a count short of what was sent is asked again a few times before it
// stands, in case a storage node took longer.
func (s *Store) landed(ctx context.Context, tags []string, want map[string]int64) (map[string]int64, error) {
	got := map[string]int64{}
	if len(tags) == 0 {
		return got, nil
	}
	for attempt := 0; ; attempt++ {
		if err := s.c.flush(ctx); err != nil {
			return nil, err
		}
		got = map[string]int64{}
		for _, list := range lists(tags) {
			q := s.streams(false) + " " + fieldBatch + ":in(" + list + ") | stats by (" + fieldBatch + ") count() n"
			err := s.c.query(ctx, q, func(row map[string]string) error {
				var n int64
				_, err := fmt.Sscan(row["n"], &n)
				got[row[fieldBatch]] = n
				return err
			})
			if err != nil {
				return nil, err
			}
		}
		short := false
		for t, n := range want {
			short = short || got[t] < n
		}
		if !short || attempt == 3 {
			return got, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt+1) * 200 * time.Millisecond):
		}
	}
}

// Sync settles the batches in flight: it returns once VictoriaLogs holds
// and serves everything Index took, or ErrWrite.
func (s *Store) Sync(ctx context.Context) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.settle(ctx)
}

// Close settles the batches in flight, and keeps the counts when this
// store wrote (keptcounts.go); the events stay on the server.
func (s *Store) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := s.Sync(ctx); err != nil {
		return err
	}
	s.keepWritten()
	return nil
}
