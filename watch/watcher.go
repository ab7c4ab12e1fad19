package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go/jetstream"
)

// Defaults of Config.
const (
	DefaultLateness    = 2 * time.Second
	DefaultMaxBuffered = 65536
)

// Config says what a Watcher reads, runs and where it publishes.
type Config struct {
	Stream string // the events' stream (default fleet.DefaultStream)
	// Durable names the consumer, and the bucket of what was published
	// (CORDON_WATCH_<Durable>): [A-Za-z0-9_-] only.
	Durable        string
	Routes         []fleet.Route
	FindingsStream string        // default DefaultFindingsStream
	Rules          []detect.Rule // default detect.Builtin
	// Lateness is how far behind the highest event time an event may
	// arrive and still be taken in order; Idle is how long of wall time
	// without an event releases every event held (default Lateness).
	Lateness, Idle time.Duration
	// MaxBuffered bounds the events held in the reorder buffer, and is the
	// consumer's MaxAckPending: every event held is a message not yet
	// acknowledged.
	MaxBuffered int
	// AckWait is how long a message delivered and not acknowledged waits
	// before the server delivers it again (default 30s): after a restart,
	// what the stopped watcher held comes again after it, and is dropped
	// as a copy of what the restart replayed.
	AckWait time.Duration
	Log     *slog.Logger              // default: discard
	Reject  func(fleet.MessageReject) // messages that do not read
	// Batch, when set, is told of every batch published (tests, status).
	Batch func(Batch)
	// Verdicts, when set, makes the watcher answer cordon.verdict.<agent>
	// and keep receipts (docs/verdicts.md).
	Verdicts *VerdictConfig
	// Replicas is how many servers of a cluster keep the findings stream
	// and the buckets the watcher creates (default 1; 3 on a cluster, to
	// survive the loss of a server).
	Replicas int
	// Partition, when not the whole, makes the watcher run one share of
	// the agents: its consumer and bucket are named for it
	// (<Durable>-p<Index>of<Count>).
	Partition Partition
	// Shared, when set, is shared by the watchers of the process that
	// read the same stream (a worker's partitions): each message is
	// decoded by one of them.
	Shared *fleet.Shared
}

// A watcher publishes what the events released changed at most every
// publishEvery, and not more often than every four times what its last
// publication took (so that asking the pass for its findings takes at
// most a fifth of a busy watcher's time), or once publishMax deliveries
// wait on it. The messages are acknowledged after it, so a finding is
// published (and a message settled) that much plus a tick of the loop
// after its event was released.
const (
	publishEvery = 50 * time.Millisecond
	publishMax   = 8192
)

// Batch is one round of the watcher: events released to the Pass and what
// that changed.
type Batch struct {
	Released  int      `json:"released"`
	Replayed  string   `json:"replayed,omitempty"` // why the pass was rebuilt from the stream ("": not)
	Created   []string `json:"created"`
	Updated   []string `json:"updated"`
	Withdrawn []string `json:"withdrawn"`
	// Other counts the events released that were another partition's.
	Other int `json:"other,omitempty"`
}

// Stats count what a Watcher did; safe to read while it runs.
type Stats struct {
	Released    int64  `json:"released"`
	Late        int64  `json:"late"`
	Replays     int64  `json:"replays"`
	Published   int64  `json:"published"`
	Republished int64  `json:"republished"`
	Other       int64  `json:"other,omitempty"`    // events released that were another partition's
	Rejected    int64  `json:"rejected,omitempty"` // messages that did not read, published on cordon.rejects
	Buffered    int    `json:"buffered"`           // events not in the pass yet: in the reorder buffer, or late and waiting for a replay
	Findings    int    `json:"findings"`
	LastReplay  string `json:"last_replay,omitempty"`
	// Verdicts answered, receipts written, requests read after their
	// deadline (not answered).
	Verdicts int64 `json:"verdicts,omitempty"`
	Receipts int64 `json:"receipts,omitempty"`
	Expired  int64 `json:"expired,omitempty"`
	// ViewStale says the verdicts are answered from a copy of the pass
	// that lacks some of what it took: the copy is made at most every
	// few hundred milliseconds while the watcher is busy (refreshView).
	ViewStale bool `json:"view_stale,omitempty"`
}

// Watcher runs the engine on a stream.
type Watcher struct {
	cfg Config
	js  jetstream.JetStream

	eng   detect.Engine
	pass  *detect.Pass
	buf   *Buffer
	state *state
	// holdings are the agents' holdings put in their bucket
	holdings *holdings
	upto     uint64 // the highest stream sequence delivered to this watcher
	// replayed is the stream's last sequence when the last replay read
	// it: what was delivered since, up to it, is in the pass already
	replayed uint64
	late     lateEvents

	verdicts  *verdicts // nil: none answered
	viewAt    time.Time
	viewDirty bool
	// last is the pass's last View, for the verdicts and the holdings
	// both (lastOf and lastAt: of which pass, at how many events)
	last   detect.View
	lastOf *detect.Pass
	lastAt int64

	// what was released since the last publication, and the deliveries
	// it settles once published (publishEvery)
	pending     Batch
	unsettled   []func()
	publishAt   time.Time
	publishCost time.Duration // what the last publication took

	mu    sync.Mutex
	stats Stats
}

// New checks cfg and fills its defaults.
func New(js jetstream.JetStream, cfg Config) (*Watcher, error) {
	if !nameOK.MatchString(cfg.Durable) {
		return nil, fmt.Errorf("durable %q: want letters, digits, - and _ only", cfg.Durable)
	}
	if err := cfg.Partition.check(); err != nil {
		return nil, err
	}
	if !cfg.Partition.Whole() && cfg.Verdicts != nil {
		return nil, fmt.Errorf("verdicts are answered by a watcher of every agent, not of partition %d of %d", cfg.Partition.Index, cfg.Partition.Count)
	}
	cfg.Durable += cfg.Partition.name()
	if cfg.Stream == "" {
		cfg.Stream = fleet.DefaultStream
	}
	if cfg.FindingsStream == "" {
		cfg.FindingsStream = DefaultFindingsStream
	}
	if cfg.Rules == nil {
		rules, err := detect.Builtin()
		if err != nil {
			return nil, fmt.Errorf("built-in rules: %w", err)
		}
		cfg.Rules = rules
	}
	if cfg.Lateness <= 0 {
		cfg.Lateness = DefaultLateness
	}
	if cfg.Idle <= 0 {
		cfg.Idle = cfg.Lateness
	}
	if cfg.MaxBuffered <= 0 {
		cfg.MaxBuffered = DefaultMaxBuffered
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	// shipped proxy and sensor events carry no agent: the pass attributes
	// them from the session records it has read, as cordon findings does
	// on a workspace whose ingest did not store attribution
	eng := detect.Engine{Rules: cfg.Rules, Attribute: true}
	w := &Watcher{cfg: cfg, js: js, eng: eng, buf: NewBuffer(cfg.Lateness, cfg.Idle, cfg.MaxBuffered)}
	if cfg.Verdicts != nil {
		rb, err := json.Marshal(cfg.Rules)
		if err != nil {
			return nil, fmt.Errorf("rules: %w", err)
		}
		w.verdicts = newVerdicts(*cfg.Verdicts, cfg.Durable, rb)
	}
	return w, nil
}

// Stats says what the watcher did so far.
func (w *Watcher) Stats() Stats {
	w.mu.Lock()
	s := w.stats
	w.mu.Unlock()
	if v := w.verdicts; v != nil {
		s.Verdicts, s.Receipts, s.Expired = v.answered.Load(), v.receipts.Load(), v.expired.Load()
	}
	return s
}

func (w *Watcher) count(f func(*Stats)) {
	w.mu.Lock()
	f(&w.stats)
	w.stats.Buffered = w.buf.Len() + int(w.late.n)
	w.mu.Unlock()
}

// Run watches until ctx ends (then it returns nil) or something fails.
// First it rebuilds what a watcher of its name had: the pass, from the
// stream up to the last message its consumer delivered, and the published
// findings, from its bucket; it publishes what differs. Then it follows.
func (w *Watcher) Run(ctx context.Context) error {
	if err := EnsureFindingsStream(ctx, w.js, w.cfg.FindingsStream, w.cfg.Replicas); err != nil {
		return err
	}
	st, err := openState(ctx, w.js, w.cfg.Durable, w.cfg.Replicas)
	if err != nil {
		return err
	}
	w.state = st
	kv, err := EnsureHoldings(ctx, w.js, w.cfg.FindingsStream, w.cfg.Replicas)
	if err != nil {
		return err
	}
	w.holdings, err = openHoldings(ctx, w.js, kv, w.cfg.Partition)
	if err != nil {
		return err
	}
	if err := ensureRejectsStream(ctx, w.js, w.cfg.Replicas); err != nil {
		return err
	}
	reject := func(m fleet.MessageReject) {
		if w.cfg.Reject != nil {
			w.cfg.Reject(m)
		}
		w.publishReject(ctx, m)
	}
	dedup := fleet.NewDedup(fleet.DedupConfig{})
	r, err := fleet.NewReader(ctx, w.js, fleet.ReaderConfig{Stream: w.cfg.Stream, Durable: w.cfg.Durable, Routes: w.cfg.Routes,
		Dedup: dedup, MaxAckPending: w.cfg.MaxBuffered, AckWait: w.cfg.AckWait, Reject: reject, Hold: true, Shared: w.cfg.Shared})
	if err != nil {
		return err
	}
	if err := w.resume(ctx, r, dedup); err != nil {
		return err
	}
	if err := w.publishHoldings(ctx, time.Now()); err != nil {
		return err
	}
	failed := make(chan error, 1)
	if w.verdicts != nil {
		stop, err := w.serveVerdicts(ctx, failed)
		if err != nil {
			return err
		}
		defer func() {
			if err := stop(); err != nil {
				w.cfg.Log.Error("receipts not written", "err", err)
			}
		}()
	}
	in := make(chan fleet.Delivery, 1024)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	readerDone := make(chan error, 1)
	go func() {
		readerDone <- r.Run(rctx, func(ctx context.Context, d fleet.Delivery) error {
			select {
			case in <- d:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	tick := time.NewTicker(min(w.cfg.Idle/4, 250*time.Millisecond) + time.Millisecond)
	defer tick.Stop()
	// the deliveries of a step, in one array kept from step to step: a
	// step copies their events into the reorder buffer and takes their
	// settlements out of them (a busy watcher's steps had made a new
	// array of up to 4,096 events each, its largest allocation)
	var batch []fleet.Delivery
	for {
		batch = batch[:0]
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return err
		case err := <-readerDone:
			if ctx.Err() != nil {
				return nil
			}
			if err == nil {
				err = errors.New("the reader stopped")
			}
			return err
		case d := <-in:
			batch = append(batch, d)
		drain:
			for len(batch) < 4096 {
				select {
				case d := <-in:
					batch = append(batch, d)
				default:
					break drain
				}
			}
		case <-tick.C:
		}
		err := w.step(ctx, batch, time.Now())
		clear(batch) // what the events hold is not kept alive by the array
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
	}
}

// step takes the deliveries that came, rebuilds the pass if one of them is
// late, releases what is due, publishes what changed, and only then
// settles the deliveries whose events reached the pass.
func (w *Watcher) step(ctx context.Context, in []fleet.Delivery, now time.Time) (err error) {
	defer func() {
		if err == nil {
			err = w.publishHoldings(ctx, now)
		}
		stale := w.viewStale() // the loop's own state, read here
		w.mu.Lock()
		w.stats.ViewStale = stale
		w.mu.Unlock()
	}()
	// in is the caller's to use again: what is kept of a delivery is its
	// event (copied into the buffer) and its settlement (Settle)
	late := 0
	var first evidence.Event // the first late event
	b := &w.pending
	settle := w.unsettled
	last := w.pass.Last()
	for i := range in {
		d := &in[i]
		if d.Seq <= w.replayed {
			// read by the last replay, which went past what was
			// delivered, and published with it: nothing waits on it
			if done := d.Settle(); done != nil {
				done()
			}
			continue
		}
		w.upto = max(w.upto, d.Seq)
		if w.pass.Events() > 0 && detect.Before(&d.Event, &last) {
			if late++; late == 1 {
				first = d.Event
			}
			if done := d.Settle(); done != nil {
				settle = append(settle, done)
			}
			continue
		}
		w.buf.Push(&d.Event, d.Settle(), now)
	}
	if late > 0 {
		if w.late.n == 0 {
			w.late.first, w.late.last = first, last
		}
		w.late.n += int64(late)
	}
	if w.late.n > 0 && now.Sub(w.late.replayAt) >= max(minReplayGap, replayCost*w.late.took) {
		ev, last, n := &w.late.first, &w.late.last, w.late.n
		b.Replayed = fmt.Sprintf("%d event(s) arrived after later ones were released: %s at %s is %s before %s at %s (lateness %s)",
			n, ev.ID, ev.Time.Format(time.RFC3339Nano), last.Time.Sub(ev.Time), last.ID, last.Time.Format(time.RFC3339Nano), w.cfg.Lateness)
		began := time.Now()
		// the replay reads the stream to its end, not to what was
		// delivered: a file shipped after a later one is late all
		// through, and a replay to the last delivery replayed again at
		// every fetch of it (about every thousand events), not once
		end, err := w.streamEnd(ctx)
		if err != nil {
			return err
		}
		end = max(end, w.upto)
		w.cfg.Log.Warn("late event: replaying the stream", "reason", b.Replayed, "upto", end)
		p, err := w.rebuild(ctx, end)
		if err != nil {
			return err
		}
		// what waited in the buffer is in the new pass, in its order
		settle = append(settle, w.buf.Drain()...)
		w.pass, w.upto, w.replayed = p, end, end
		w.late = lateEvents{replayAt: now, took: time.Since(began)}
		w.count(func(s *Stats) { s.Late += n; s.Replays++; s.LastReplay = b.Replayed })
	}
	for _, it := range w.buf.Due(now) {
		settle = append(settle, it.done...)
		own, err := w.cfg.Partition.add(w.pass, &it.ev)
		if err != nil {
			return fmt.Errorf("event %s: %w", it.ev.ID, err)
		}
		if !own {
			b.Other++
			continue
		}
		b.Released++
	}
	// another partition's events may change a finding of this one's (a
	// destination another agent reaches too): published as any change.
	// What was released is published at most every publishEvery, unless a
	// replay happened or many events wait: asking the pass for its
	// findings costs about as much as hundreds of events, and a busy
	// watcher steps for every few messages.
	w.unsettled = settle
	if b.Released == 0 && b.Other == 0 && b.Replayed == "" || b.Replayed == "" && len(settle) < publishMax && now.Sub(w.publishAt) < max(publishEvery, 4*w.publishCost) {
		w.count(func(*Stats) {})
		if w.viewDirty {
			w.refreshView(now)
		}
		return nil
	}
	cur := *b
	b = &cur
	w.pending, w.unsettled, w.publishAt = Batch{}, nil, now
	if err := w.publish(ctx, b); err != nil {
		return err
	}
	w.publishCost = time.Since(now)
	// verdicts see a finding as soon as it is published, other changes
	// within viewEvery
	w.viewDirty = true
	if len(b.Created)+len(b.Updated)+len(b.Withdrawn) > 0 || b.Replayed != "" || now.Sub(w.viewAt) >= viewEvery {
		w.refreshView(now)
	}
	for _, done := range settle {
		done()
	}
	clear(settle)
	w.unsettled = settle[:0] // its array, for the next step's settlements
	w.count(func(s *Stats) { s.Released += int64(b.Released); s.Other += int64(b.Other) })
	if w.cfg.Batch != nil {
		w.cfg.Batch(*b)
	}
	return nil
}

// publish sends what the pass's findings changed against what was
// published, waits for the server to take it, and keeps it in the bucket.
func (w *Watcher) publish(ctx context.Context, b *Batch) error {
	found := w.cfg.Partition.mine(w.pass.Findings())
	out, err := w.state.announce(found)
	if err != nil {
		return err
	}
	b.Created, b.Updated, b.Withdrawn = []string{}, []string{}, []string{}
	for _, o := range out {
		switch o.change {
		case Created:
			b.Created = append(b.Created, o.id)
		case Updated:
			b.Updated = append(b.Updated, o.id)
		case Withdrawn:
			b.Withdrawn = append(b.Withdrawn, o.id)
		}
	}
	if len(out) == 0 {
		w.count(func(s *Stats) { s.Findings = len(found) })
		return nil
	}
	dup, err := send(ctx, w.js, out)
	if err != nil {
		return err
	}
	// a finding created before a restart, whose state was not kept: the
	// stream dropped the second "created"; what it is now goes as an update
	var again []outgoing
	var republished int64
	for i, o := range out {
		if !dup[i] {
			continue
		}
		republished++
		if o.change == Created {
			u, err := newMessage(*o.finding, Updated, o.mark, o.seq+1, w.state.maxPayload)
			if err != nil {
				return err
			}
			again = append(again, u)
		}
	}
	if len(again) > 0 {
		if _, err := send(ctx, w.js, again); err != nil {
			return err
		}
	}
	if err := w.state.record(ctx, append(out, again...)); err != nil {
		return err
	}
	w.count(func(s *Stats) {
		s.Published += int64(len(out) + len(again))
		s.Republished += republished
		s.Findings = len(found)
	})
	return nil
}

// A replay is made at most every replayCost times what the last took, and
// not sooner than minReplayGap after it: the events late in between wait
// for it (acknowledged: a restart reads them from the stream). A source
// whose clock is far behind the others (a host that booted without one,
// stamping 1970) is late at every step, and a replay at every step was
// all a watcher did; its findings wait at most that long for it.
const (
	minReplayGap = time.Second
	replayCost   = 4
)

// lateEvents are the events late since the last replay.
type lateEvents struct {
	n           int64
	first, last evidence.Event // the first late event, and the pass's last then
	replayAt    time.Time      // when the last replay was made
	took        time.Duration  // what it took
}
