package fleet

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Replay reads the stream from its first message through sequence upto
// with an ephemeral ordered consumer (no state kept on the server, nothing
// acknowledged) and hands every event of the subjects cfg reads to fn, in
// stream order, decoded as a Reader decodes them. It does not de-duplicate:
// the caller keeps the last event of each id (a request's later stage
// replaces its earlier one, a copy is the same event). Messages that do
// not read go to cfg.Reject as a Reader's do. The stream is the store: a
// watcher rebuilds its state from it after a restart or a late event.
func Replay(ctx context.Context, js jetstream.JetStream, cfg ReaderConfig, upto uint64, fn func(Delivery) error) error {
	if upto == 0 {
		return nil
	}
	cfg.defaults()
	if err := cfg.resolveLedger(ctx, js); err != nil {
		return err
	}
	reject := func(m MessageReject) {
		if cfg.Reject != nil {
			cfg.Reject(m)
		}
	}
	cons, err := js.OrderedConsumer(ctx, cfg.Stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: cfg.Subjects,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return fmt.Errorf("replay stream %s: %w", cfg.Stream, err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(512))
	if err != nil {
		return fmt.Errorf("replay stream %s: %w", cfg.Stream, err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	// a stream whose messages are all on other subjects: nothing will
	// come, and Next would wait for it
	if info, err := cons.Info(ctx); err == nil && info.NumPending == 0 && info.Delivered.Consumer == 0 && info.NumAckPending == 0 {
		return nil
	}
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return fmt.Errorf("replay stream %s: stopped before sequence %d", cfg.Stream, upto)
			}
			return fmt.Errorf("replay stream %s: %w", cfg.Stream, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return fmt.Errorf("replay stream %s: %w", cfg.Stream, err)
		}
		if meta.Sequence.Stream > upto {
			return nil
		}
		if base, events, ok := cfg.decode(msg, meta, reject); ok {
			for _, ev := range events {
				d := base
				d.Event = ev
				if err := fn(d); err != nil {
					return err
				}
			}
		}
		// the last message of those asked for, or the last the stream
		// holds on these subjects (a message past upto may never come)
		if meta.Sequence.Stream == upto || meta.NumPending == 0 {
			return nil
		}
	}
}
