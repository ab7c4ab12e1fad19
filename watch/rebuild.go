package watch

import (
	"context"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
)

// The stream is the store: a watcher keeps no events, so whenever its pass
// cannot go on in order (a late event) or was lost (a restart), it reads
// the stream again from its start with an ephemeral ordered consumer and
// replays the events into a new pass, as cordon findings runs over a
// workspace. It costs a read of the stream and a pass over it, and holds
// the replayed events in memory while they are sorted.

// rebuild starts a pass over the events of the stream up to sequence upto.
func (w *Watcher) rebuild(ctx context.Context, upto uint64) (*detect.Pass, error) {
	evs, err := w.read(ctx, upto, nil)
	if err != nil {
		return nil, err
	}
	return w.passOver(ctx, evs)
}

// streamEnd is the last sequence the events' stream holds.
func (w *Watcher) streamEnd(ctx context.Context) (uint64, error) {
	s, err := w.js.Stream(ctx, w.cfg.Stream)
	if err != nil {
		return 0, fmt.Errorf("stream %s: %w", w.cfg.Stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("stream %s: %w", w.cfg.Stream, err)
	}
	return info.State.LastSeq, nil
}

// read is every event of the stream up to sequence upto, the last of each
// id kept (a request's later stage replaces its earlier one; a copy is
// the same event), with each message's keys added to dedup when given.
func (w *Watcher) read(ctx context.Context, upto uint64, dedup *fleet.Dedup) ([]evidence.Event, error) {
	byID := map[string]int{}
	var evs []evidence.Event
	cfg := fleet.ReaderConfig{Stream: w.cfg.Stream, Routes: w.cfg.Routes}
	err := fleet.Replay(ctx, w.js, cfg, upto, func(d fleet.Delivery) error {
		if dedup != nil {
			dedup.Add(fleet.Key(&d.Event), d.Stored)
		}
		if i, ok := byID[d.Event.ID]; ok {
			evs[i] = d.Event
			return nil
		}
		byID[d.Event.ID] = len(evs)
		evs = append(evs, d.Event)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return evs, nil
}

// passOver starts a pass that knows evs' session records from its start,
// and adds evs in order.
func (w *Watcher) passOver(ctx context.Context, evs []evidence.Event) (*detect.Pass, error) {
	src := detect.NewMemSource(evs)
	p, err := w.eng.Start(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("start the engine: %w", err)
	}
	add := func(p *detect.Pass, ev *evidence.Event) error {
		_, err := w.cfg.Partition.add(p, ev)
		return err
	}
	if err := p.ReplayVia(ctx, src, add); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return p, nil
}

// resume rebuilds what the watcher of this name had before it stopped:
// every event its consumer delivered (acknowledged or not: an event it
// acknowledged was released to the pass, one it did not may have been
// held in the buffer) is read from the stream; those Lateness behind the
// latest go to the pass, the rest back to the buffer, as if they had just
// come; and their keys go to the reader's de-duplication, so that the
// messages the server delivers again are not taken twice. Then it
// publishes what differs from what the bucket says was published.
func (w *Watcher) resume(ctx context.Context, r *fleet.Reader, dedup *fleet.Dedup) error {
	upto, err := r.Delivered(ctx)
	if err != nil {
		return fmt.Errorf("consumer %s: %w", w.cfg.Durable, err)
	}
	w.upto = upto
	evs, err := w.read(ctx, upto, dedup)
	if err != nil {
		return err
	}
	var highest time.Time
	for i := range evs {
		if evs[i].Time.After(highest) {
			highest = evs[i].Time
		}
	}
	mark := highest.Add(-w.cfg.Lateness)
	var now, held []evidence.Event
	for _, ev := range evs {
		if ev.Time.After(mark) {
			held = append(held, ev)
		} else {
			now = append(now, ev)
		}
	}
	if w.pass, err = w.passOver(ctx, now); err != nil {
		return err
	}
	at := time.Now()
	for i := range held {
		w.buf.Push(&held[i], nil, at)
	}
	b := Batch{Released: len(now)}
	if upto > 0 {
		b.Replayed = fmt.Sprintf("started again: %d event(s) the consumer had delivered, up to sequence %d", len(evs), upto)
		w.cfg.Log.Info("resuming", "reason", b.Replayed, "published", len(w.state.marks))
		w.count(func(s *Stats) { s.Replays++; s.LastReplay = b.Replayed })
	}
	if err := w.publish(ctx, &b); err != nil {
		return err
	}
	w.count(func(s *Stats) { s.Released += int64(b.Released) })
	if w.cfg.Batch != nil {
		w.cfg.Batch(b)
	}
	return nil
}
