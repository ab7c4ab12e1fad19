package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go/jetstream"
)

// Several watch processes share a stream as a group: the agents are cut
// into a fixed number of partitions (Partition), each run by one
// partition watcher at a time, and the workers of the group take the
// partitions between them through leases in a key-value bucket,
// CORDON_WATCH_<durable>_GROUP. A worker renews its leases and its status
// every third of the lease; a worker not heard of for a lease loses its
// partitions, and the others take them up: a partition watcher started
// elsewhere resumes from the partition's consumer and bucket as a
// restarted watcher does, so no finding is lost or created twice.

// DefaultLease is how long a worker's partitions stay its own without a
// word from it.
const DefaultLease = 10 * time.Second

// GroupSuffix ends the name of a group's bucket (after BucketPrefix and
// the durable name).
const GroupSuffix = "_GROUP"

// WorkerConfig runs one worker of a group.
type WorkerConfig struct {
	// Config is each partition watcher's; its Durable names the group.
	Config
	// Worker names this worker, unique in the group: [A-Za-z0-9_-].
	Worker string
	// Partitions is how many partitions the agents are cut into: the
	// same for every worker of the group, for the life of the group
	// (another count is another set of consumers and buckets).
	Partitions int
	Lease      time.Duration // default DefaultLease
	// Status, when set, is told of the worker's status as it is kept,
	// and of its totals once it stopped (no partitions).
	Status func(WorkerStatus)
}

// WorkerStatus is what a worker says of itself in the group's bucket.
type WorkerStatus struct {
	Worker     string `json:"worker"`
	Partitions []int  `json:"partitions"`
	// Lag is the messages of the stream its partitions' consumers have
	// not delivered yet, plus those delivered and not yet acknowledged.
	Lag uint64 `json:"lag"`
	// EventsPerSec is the events its partition watchers released per
	// second since its last status (their own and their peers'),
	// FindingsPerSec the finding messages they published.
	EventsPerSec   float64   `json:"events_per_s"`
	FindingsPerSec float64   `json:"findings_per_s"`
	Events         int64     `json:"events"`    // released since the worker started
	Published      int64     `json:"published"` // finding messages since it started
	Buffered       int       `json:"buffered"`  // events held in its reorder buffers
	Findings       int       `json:"findings"`  // findings of its partitions, as they stand
	At             time.Time `json:"at"`
}

// running is a partition watcher of this worker.
type running struct {
	w      *Watcher
	rev    uint64 // the lease's revision
	cancel context.CancelFunc
	done   chan error
}

func groupBucket(durable string) string { return BucketPrefix + durable + GroupSuffix }

func leaseKey(i int) string { return "lease." + strconv.Itoa(i) }

func workerKey(name string) string { return "worker." + name }

// openGroup opens (creates) the group's bucket, its keys living a lease.
func openGroup(ctx context.Context, js jetstream.JetStream, durable string, lease time.Duration, replicas int) (jetstream.KeyValue, error) {
	name := groupBucket(durable)
	kv, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
		Bucket:      name,
		Description: "cordon watch " + durable + ": the workers and their partitions",
		History:     1,
		TTL:         lease,
		Storage:     jetstream.FileStorage,
		Replicas:    max(replicas, 1),
	})
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", name, err)
	}
	return kv, nil
}

// RunWorker runs a worker of the group until ctx ends: it takes its fair
// share of the partitions (their count divided by the workers heard of,
// rounded up) as leases fall free, runs a partition watcher for each,
// gives up a partition when it holds more than its share or loses the
// lease, and keeps its status in the group's bucket. Stopped, it stops its
// watchers and gives its leases back.
func RunWorker(ctx context.Context, js jetstream.JetStream, cfg WorkerConfig) error {
	if !nameOK.MatchString(cfg.Worker) {
		return fmt.Errorf("worker %q: want letters, digits, - and _ only", cfg.Worker)
	}
	if !nameOK.MatchString(cfg.Durable) {
		return fmt.Errorf("durable %q: want letters, digits, - and _ only", cfg.Durable)
	}
	if cfg.Partitions < 1 {
		return fmt.Errorf("partitions: %d, want 1 or more", cfg.Partitions)
	}
	if cfg.Verdicts != nil {
		return errors.New("a group of workers answers no verdicts: run a watcher of every agent for them")
	}
	if cfg.Lease <= 0 {
		cfg.Lease = DefaultLease
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	// a worker started while the servers cannot make the bucket yet (a
	// cluster electing its leaders) waits for them
	var kv jetstream.KeyValue
	for {
		var err error
		if kv, err = openGroup(ctx, js, cfg.Durable, cfg.Lease, cfg.Replicas); err == nil {
			break
		}
		cfg.Log.Warn("group bucket not open; trying again", "err", err)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(time.Second):
		}
	}
	g := &worker{cfg: cfg, js: js, kv: kv, held: map[int]*running{}, last: time.Now(), shared: fleet.NewShared(0, 0)}
	defer g.stopAll()
	tick := time.NewTicker(cfg.Lease / 3)
	defer tick.Stop()
	for {
		if err := g.round(ctx); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
}

// worker is RunWorker's state.
type worker struct {
	cfg  WorkerConfig
	js   jetstream.JetStream
	kv   jetstream.KeyValue
	held map[int]*running
	// retired sums the stats of the partition watchers stopped, so that
	// the rates go on across a hand-over
	retired       Stats
	last          time.Time
	lastEvents    int64
	lastPublished int64
	// shared: the worker's partition watchers decode each message once
	shared *fleet.Shared
}

// round is one tick: settle what stopped, renew, say how it is, then take
// or give partitions to hold its share.
func (g *worker) round(ctx context.Context) error {
	for i, r := range g.held {
		select {
		case err := <-r.done:
			g.cfg.Log.Error("partition watcher stopped", "partition", i, "err", err)
			g.forget(ctx, i, r)
		default:
		}
	}
	for i, r := range g.held {
		rev, err := g.kv.Update(ctx, leaseKey(i), []byte(g.cfg.Worker), r.rev)
		if err != nil {
			// another worker holds it now, or the bucket cannot be
			// reached: the partition is not ours to run any more
			g.cfg.Log.Warn("lease lost", "partition", i, "err", err)
			g.stop(i, r)
			continue
		}
		r.rev = rev
	}
	workers, err := g.workers(ctx)
	if err != nil {
		g.cfg.Log.Warn("workers not read", "err", err)
		workers = 1 // at least this one: nothing is left unwatched
	}
	share := (g.cfg.Partitions + workers - 1) / workers
	for len(g.held) > share {
		i := slices.Max(slices.Collect(maps.Keys(g.held)))
		r := g.held[i]
		g.stop(i, r)
		g.kv.Delete(ctx, leaseKey(i), jetstream.LastRevision(r.rev))
	}
	for i := 0; i < g.cfg.Partitions && len(g.held) < share; i++ {
		if _, ok := g.held[i]; ok {
			continue
		}
		rev, err := g.kv.Create(ctx, leaseKey(i), []byte(g.cfg.Worker))
		if err != nil {
			continue // held by another worker
		}
		if err := g.start(ctx, i, rev); err != nil {
			g.kv.Delete(ctx, leaseKey(i), jetstream.LastRevision(rev))
			return err
		}
	}
	if err := g.status(ctx); err != nil {
		g.cfg.Log.Warn("status not kept", "err", err)
	}
	return nil
}

// start runs the watcher of partition i.
func (g *worker) start(ctx context.Context, i int, rev uint64) error {
	cfg := g.cfg.Config
	cfg.Partition = Partition{Index: i, Count: g.cfg.Partitions}
	cfg.Shared = g.shared
	w, err := New(g.js, cfg)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	r := &running{w: w, rev: rev, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- w.Run(wctx) }()
	g.held[i] = r
	g.shared.SetReaders(len(g.held))
	g.cfg.Log.Info("partition taken", "partition", i, "of", g.cfg.Partitions, "worker", g.cfg.Worker)
	return nil
}

// stop stops the watcher of partition i and waits for it: a lease is
// given back only once its watcher publishes nothing more.
func (g *worker) stop(i int, r *running) {
	r.cancel()
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		g.cfg.Log.Error("partition watcher did not stop in 30s", "partition", i)
	}
	g.retire(i, r)
}

// forget drops a partition whose watcher stopped by itself, giving its
// lease back so that a worker takes it up again.
func (g *worker) forget(ctx context.Context, i int, r *running) {
	r.cancel()
	g.retire(i, r)
	g.kv.Delete(ctx, leaseKey(i), jetstream.LastRevision(r.rev))
}

func (g *worker) retire(i int, r *running) {
	s := r.w.Stats()
	g.retired.Released += s.Released
	g.retired.Other += s.Other
	g.retired.Published += s.Published
	delete(g.held, i)
	g.shared.SetReaders(len(g.held))
}

// stopAll stops every partition watcher and gives the leases and the
// status back (a worker stopped on purpose hands over at once).
func (g *worker) stopAll() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for i, r := range g.held {
		g.stop(i, r)
		g.kv.Delete(ctx, leaseKey(i), jetstream.LastRevision(r.rev))
	}
	g.kv.Delete(ctx, workerKey(g.cfg.Worker))
	g.build(ctx) // the totals, told to cfg.Status
}

// workers counts the workers heard of within a lease, this one included.
func (g *worker) workers(ctx context.Context) (int, error) {
	keys, err := g.kv.ListKeysFiltered(ctx, "worker.*")
	if err != nil {
		return 0, err
	}
	n := 0
	self := false
	for k := range keys.Keys() {
		n++
		self = self || k == workerKey(g.cfg.Worker)
	}
	if !self {
		n++
	}
	return max(n, 1), nil
}

// status keeps what the worker says of itself.
func (g *worker) status(ctx context.Context) error {
	st := g.build(ctx)
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	_, err = g.kv.Put(ctx, workerKey(g.cfg.Worker), b)
	return err
}

// build is the worker's status now, told to cfg.Status.
func (g *worker) build(ctx context.Context) WorkerStatus {
	now := time.Now()
	st := WorkerStatus{Worker: g.cfg.Worker, At: now.UTC(), Partitions: []int{}}
	events, published := g.retired.Released+g.retired.Other, g.retired.Published
	for i, r := range g.held {
		st.Partitions = append(st.Partitions, i)
		s := r.w.Stats()
		events += s.Released + s.Other
		published += s.Published
		st.Buffered += s.Buffered
		st.Findings += s.Findings
		if lag, err := r.w.Lag(ctx); err == nil {
			st.Lag += lag
		}
	}
	slices.Sort(st.Partitions)
	if dt := now.Sub(g.last).Seconds(); dt > 0 {
		st.EventsPerSec = float64(events-g.lastEvents) / dt
		st.FindingsPerSec = float64(published-g.lastPublished) / dt
	}
	st.Events, st.Published = events, published
	g.last, g.lastEvents, g.lastPublished = now, events, published
	if g.cfg.Status != nil {
		g.cfg.Status(st)
	}
	return st
}

// GroupStatus is what a group's bucket says: each worker's last status,
// and who holds each partition.
type GroupStatus struct {
	Workers []WorkerStatus `json:"workers"`
	Leases  map[int]string `json:"leases"`
}

// ReadGroup reads the status of the group of durable: the workers heard of
// within a lease, and the partitions' leases.
func ReadGroup(ctx context.Context, js jetstream.JetStream, durable string) (GroupStatus, error) {
	out := GroupStatus{Leases: map[int]string{}}
	kv, err := js.KeyValue(ctx, groupBucket(durable))
	if err != nil {
		return out, fmt.Errorf("bucket %s: %w", groupBucket(durable), err)
	}
	keys, err := kv.ListKeys(ctx)
	if err != nil {
		return out, fmt.Errorf("bucket %s: %w", groupBucket(durable), err)
	}
	for k := range keys.Keys() {
		e, err := kv.Get(ctx, k)
		if err != nil {
			continue // expired meanwhile
		}
		switch {
		case strings.HasPrefix(k, "worker."):
			var st WorkerStatus
			if json.Unmarshal(e.Value(), &st) == nil {
				out.Workers = append(out.Workers, st)
			}
		case strings.HasPrefix(k, "lease."):
			if i, err := strconv.Atoi(strings.TrimPrefix(k, "lease.")); err == nil {
				out.Leases[i] = string(e.Value())
			}
		}
	}
	slices.SortFunc(out.Workers, func(a, b WorkerStatus) int { return strings.Compare(a.Worker, b.Worker) })
	return out, nil
}

// Lag is the messages of the stream the watcher's consumer has not
// delivered yet, plus those delivered and not acknowledged.
func (w *Watcher) Lag(ctx context.Context) (uint64, error) {
	c, err := w.js.Consumer(ctx, w.cfg.Stream, w.cfg.Durable)
	if err != nil {
		return 0, err
	}
	info, err := c.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.NumPending + uint64(info.NumAckPending), nil
}
