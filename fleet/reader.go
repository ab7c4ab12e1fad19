package fleet

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/nats-io/nats.go/jetstream"
)

// ReaderConfig says what a Reader reads and how.
type ReaderConfig struct {
	Stream string // default DefaultStream
	// Durable names the consumer: the server keeps what it acknowledged,
	// so a reader started again with the same name goes on from there.
	Durable string
	// Subjects it reads: default EventsSubjects, RawSubjects and the
	// Routes' subjects.
	Subjects []string
	Routes   []Route
	// Dedup is the set of keys delivered (default NewDedup of the zero
	// config). A consumer that keeps its own checkpoint saves it beside
	// that (Dedup.WriteTo) and passes it back here after a restart.
	Dedup *Dedup
	// AckWait is how long a message may go unacknowledged before the
	// server delivers it again (default 30s); MaxAckPending bounds the
	// messages handed out and not yet acknowledged (default 1024).
	AckWait       time.Duration
	MaxAckPending int
	// Reject is told of every message, or record in a raw message, that
	// is not an event cordon can read. It is not delivered again.
	Reject  func(MessageReject)
	Parsers []parse.Parser // default ingest.Parsers()
	// Hold leaves each message unacknowledged when the handler returns:
	// the handler calls Delivery.Done for each event once it is done with
	// it (a watcher, after the event went through its reorder buffer and
	// what it changed was published), and the message is acknowledged
	// when the last of its events is. A message the consumer delivers
	// again meanwhile (past AckWait) carries keys already seen, and is
	// acknowledged then.
	Hold bool
	// Shared, when set, is shared with the other readers of the stream in
	// the process: each message is decoded by one of them (Shared).
	Shared *Shared
	// ledger is the one stream records in the ledger's format may come
	// from, as the events' stream's metadata names it (LedgerStreamOf):
	// a record in that format sourced from anywhere else is rejected
	// (docs/fleet.md, "Security of the bus"). None named, the subject
	// alone says a record is the ledger's.
	ledger     string
	ledgerRead bool
}

// MessageReject is a message (or a record of a raw message) that did not
// read: where it is on the stream and why.
type MessageReject struct {
	Origin  string `json:"origin"` // nats:STREAM:SEQ, and :LINE for a record of a raw message
	Subject string `json:"subject"`
	Reason  string `json:"reason"`
	Data    string `json:"data,omitempty"` // its first parse.MaxRejectData bytes
}

// Delivery is one event handed to a Reader's handler.
type Delivery struct {
	Event   evidence.Event
	Subject string
	Seq     uint64    // the stream sequence of its message
	Stored  time.Time // when the stream stored it
	Raw     bool      // parsed here from a raw record

	stream string
	held   *heldMsg // the message to settle (Hold), nil when the reader does
}

// ReaderStats count what a Reader did.
type ReaderStats struct {
	Messages   int64      `json:"messages"`   // messages read
	Delivered  int64      `json:"delivered"`  // events handed to the handler
	Duplicates int64      `json:"duplicates"` // events dropped as delivered before
	Rejected   int64      `json:"rejected"`   // messages and records that did not read
	Dedup      DedupStats `json:"dedup"`
}

// Reader reads events from a stream through a durable pull consumer.
type Reader struct {
	cfg  ReaderConfig
	cons jetstream.Consumer
	// scratch is where a message of one event is decoded, again for each
	// message (the handler is handed a copy): a reader that shares its
	// messages (Shared) keeps each message's events and decodes into
	// new ones
	scratch []evidence.Event

	messages, delivered, dups, rejected atomic.Int64
	dedupStats                          atomic.Pointer[DedupStats]
}

// NewReader creates (or updates) the durable consumer and returns its
// reader.
func NewReader(ctx context.Context, js jetstream.JetStream, cfg ReaderConfig) (*Reader, error) {
	if cfg.Durable == "" {
		return nil, errors.New("a reader needs a durable consumer name")
	}
	cfg.defaults()
	if cfg.Dedup == nil {
		cfg.Dedup = NewDedup(DedupConfig{})
	}
	if cfg.AckWait <= 0 {
		cfg.AckWait = 30 * time.Second
	}
	if cfg.MaxAckPending <= 0 {
		cfg.MaxAckPending = 1024
	}
	if err := cfg.resolveLedger(ctx, js); err != nil {
		return nil, err
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, cfg.Stream, jetstream.ConsumerConfig{
		Durable:        cfg.Durable,
		Description:    "cordon reader",
		FilterSubjects: cfg.Subjects,
		AckPolicy:      jetstream.AckExplicitPolicy,
		AckWait:        cfg.AckWait,
		MaxAckPending:  cfg.MaxAckPending,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s on stream %s: %w", cfg.Durable, cfg.Stream, err)
	}
	r := &Reader{cfg: cfg, cons: cons}
	r.saveStats()
	return r, nil
}

// defaults fills what a reader and a replay read alike: the stream, its
// subjects, the parsers.
func (cfg *ReaderConfig) defaults() {
	if cfg.Stream == "" {
		cfg.Stream = DefaultStream
	}
	if len(cfg.Subjects) == 0 {
		cfg.Subjects = []string{EventsSubjects, RawSubjects}
		for _, r := range cfg.Routes {
			cfg.Subjects = append(cfg.Subjects, r.Subject)
		}
	}
	if cfg.Parsers == nil {
		cfg.Parsers = ingest.Parsers()
	}
}

// Delivered is the stream sequence of the last message the consumer
// handed out (to any reader of its name; 0: none yet). Everything up to
// it was delivered once, and what was not acknowledged comes again.
func (r *Reader) Delivered(ctx context.Context) (uint64, error) {
	info, err := r.cons.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.Delivered.Stream, nil
}

// Stats says what the reader did so far; safe to call while it runs.
func (r *Reader) Stats() ReaderStats {
	return ReaderStats{Messages: r.messages.Load(), Delivered: r.delivered.Load(), Duplicates: r.dups.Load(),
		Rejected: r.rejected.Load(), Dedup: *r.dedupStats.Load()}
}

func (r *Reader) saveStats() {
	s := r.cfg.Dedup.Stats()
	r.dedupStats.Store(&s)
}

// Pending is how many messages the consumer has not yet had acknowledged:
// those not delivered and those delivered and awaiting their ack.
func (r *Reader) Pending(ctx context.Context) (uint64, error) {
	info, err := r.cons.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.NumPending + uint64(info.NumAckPending), nil
}

// Run hands every event to handle, one at a time in stream order, until
// ctx ends (then it returns nil) or handle fails. A message is acknowledged
// once handle returned for each of its events; an event whose key was
// delivered before (Dedup) is not handed again. When handle fails, the
// message is given back to the server (it comes again, to this reader or
// another of the same consumer), and Run returns the error.
func (r *Reader) Run(ctx context.Context, handle func(context.Context, Delivery) error) error {
	it, err := r.cons.Messages(jetstream.PullMaxMessages(min(r.cfg.MaxAckPending, 512)), jetstream.WithMessagesErrOnMissingHeartbeat(false))
	if err != nil {
		return fmt.Errorf("read consumer %s: %w", r.cfg.Durable, err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return nil
			}
			return fmt.Errorf("read consumer %s: %w", r.cfg.Durable, err)
		}
		r.messages.Add(1)
		if err := r.one(ctx, msg, handle); err != nil {
			return err
		}
		r.saveStats()
	}
}

// one handles a message.
func (r *Reader) one(ctx context.Context, msg jetstream.Msg, handle func(context.Context, Delivery) error) error {
	meta, err := msg.Metadata()
	if err != nil {
		// not a JetStream message: nothing to place or acknowledge
		return fmt.Errorf("read consumer %s: %w", r.cfg.Durable, err)
	}
	var base Delivery
	var events []evidence.Event
	ok := false
	if sh := r.cfg.Shared; sh != nil {
		base = Delivery{Subject: msg.Subject(), Seq: meta.Sequence.Stream, Stored: meta.Timestamp, stream: meta.Stream}
		events, base.Raw, ok = sh.take(meta.Stream, meta.Sequence.Stream)
	}
	if !ok {
		var into []evidence.Event
		if r.cfg.Shared == nil {
			into = r.scratch[:0]
		}
		base, events, ok = r.cfg.decodeInto(msg, meta, r.reject, into)
		if !ok {
			settle(msg.Term)
			return nil
		}
		if sh := r.cfg.Shared; sh != nil {
			sh.keep(meta.Stream, meta.Sequence.Stream, events, base.Raw)
		}
	}
	var held *heldMsg
	if r.cfg.Hold {
		// one count for the loop itself, so that a delivery settled
		// while the loop still runs does not acknowledge early
		held = &heldMsg{msg: msg}
		held.n.Store(1)
	}
	if r.cfg.Shared == nil && len(events) == 1 {
		r.scratch = events
	}
	for i := range events {
		ev := &events[i]
		key := Key(ev)
		if r.cfg.Dedup.Seen(key) {
			r.dups.Add(1)
			continue
		}
		d := base
		d.Event = *ev
		if held != nil {
			held.n.Add(1)
			d.held = held
		}
		if err := handle(ctx, d); err != nil {
			// the server delivers it again; what this message's earlier
			// events did is kept in Dedup, so they are not handed twice
			_ = msg.Nak()
			return fmt.Errorf("handle event %s (%s): %w", ev.ID, base.origin(), err)
		}
		r.cfg.Dedup.Add(key, meta.Timestamp)
		r.delivered.Add(1)
	}
	if held != nil {
		held.done()
		return nil
	}
	settle(msg.Ack)
	return nil
}

// heldMsg is a message whose events a handler settles itself (Hold): it
// is acknowledged when the last of them is.
type heldMsg struct {
	msg jetstream.Msg
	n   atomic.Int32
}

func (h *heldMsg) done() {
	if h.n.Add(-1) == 0 {
		settle(h.msg.Ack)
	}
}

// Settle takes d's settlement out of it: the func returned settles it as
// Done would (nil for a delivery of a reader that does not hold its
// messages), and Done then does nothing. A handler that holds the
// settlement longer than the delivery (a watcher's reorder buffer) keeps
// the func, not the delivery.
func (d *Delivery) Settle() func() {
	h := d.held
	if h == nil {
		return nil
	}
	d.held = nil
	return h.done
}

// Done settles a delivery of a reader that holds its messages
// (ReaderConfig.Hold): its message is acknowledged once every event of it
// was settled. It does nothing for a delivery of another reader, or a
// second time.
func (d *Delivery) Done() {
	if h := d.held; h != nil {
		d.held = nil
		h.done()
	}
}

func (d Delivery) origin() string { return "nats:" + d.stream + ":" + strconv.FormatUint(d.Seq, 10) }

// decode reads the events of a message; ok is false when it is rejected
// (reject was told why).
func (cfg *ReaderConfig) decode(msg jetstream.Msg, meta *jetstream.MsgMetadata, reject func(MessageReject)) (base Delivery, events []evidence.Event, ok bool) {
	return cfg.decodeInto(msg, meta, reject, nil)
}

// decodeInto is decode, a message of one event decoded into into's
// array when it has room (the event in it is overwritten).
func (cfg *ReaderConfig) decodeInto(msg jetstream.Msg, meta *jetstream.MsgMetadata, reject func(MessageReject), into []evidence.Event) (base Delivery, events []evidence.Event, ok bool) {
	subject := msg.Subject()
	base = Delivery{Subject: subject, Seq: meta.Sequence.Stream, Stored: meta.Timestamp, stream: meta.Stream}
	origin := base.origin()
	format, err := rawFormat(subject, cfg.Routes)
	if err != nil {
		reject(MessageReject{Origin: origin, Subject: subject, Reason: err.Error(), Data: string(msg.Data())})
		return base, nil, false
	}
	if format != "" {
		base.Raw = true
		evs, rejects, err := ParseRaw(cfg.Parsers, format, origin, msg.Data())
		if err != nil {
			reject(MessageReject{Origin: origin, Subject: subject, Reason: err.Error(), Data: string(msg.Data())})
			return base, nil, false
		}
		for _, rj := range rejects {
			reject(MessageReject{Origin: rj.Origin, Subject: subject, Reason: rj.Reason, Data: rj.Data})
		}
		events = evs
	} else {
		events = append(into[:0], evidence.Event{})
		if err := decodeTo(&events[0], subject, msg.Headers(), msg.Data()); err != nil {
			reject(MessageReject{Origin: origin, Subject: subject, Reason: err.Error(), Data: string(msg.Data())})
			return base, nil, false
		}
	}
	if err := cfg.fromLedger(msg.Headers(), events); err != nil {
		reject(MessageReject{Origin: origin, Subject: subject, Reason: err.Error(), Data: string(msg.Data())})
		return base, nil, false
	}
	return base, events, true
}

// settle acknowledges (or ends) a message. A failure is not the reader's
// end: the server delivers the message again after AckWait, and Dedup
// drops what it carries.
func settle(ack func() error) { _ = ack() }

func (r *Reader) reject(m MessageReject) {
	r.rejected.Add(1)
	m.Data = parse.CutText(m.Data, parse.MaxRejectData)
	if r.cfg.Reject != nil {
		r.cfg.Reject(m)
	}
}
