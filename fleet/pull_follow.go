package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/nats-io/nats.go/jetstream"
)

// PullFollow is Pull, then, until ctx ends, every message stored after the
// stream as it stood, in stream order: each event is attributed as it
// comes by the identity map the pull made, which learns from it (a session
// record, a credential seen changing hands, a binding conflict), and is
// written, then flush called, when it is one of cfg.Agents' within Since
// and Until or an identity record up to Until. A copy of an event already
// written is not written again. Ending with ctx is no error.
//
// Unlike the pull, a follow cannot know a session's latest record before
// it comes: a binding conflict that a later record of an agent not pulled
// would show is decided without it (the record that made the conflict is
// written, not the one before it).
func PullFollow(ctx context.Context, js jetstream.JetStream, cfg PullConfig, w io.Writer, flush func() error) (PullResult, error) {
	res, p, err := pull(ctx, js, cfg, w)
	if err != nil {
		return res, err
	}
	if err := flush(); err != nil {
		return res, err
	}
	reject := func(m MessageReject) {
		if cfg.Reject != nil {
			cfg.Reject(m)
		}
	}
	cons, err := js.OrderedConsumer(ctx, p.rcfg.Stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: p.rcfg.Subjects,
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    res.Upto + 1,
	})
	if err != nil {
		return res, fmt.Errorf("follow stream %s: %w", p.rcfg.Stream, err)
	}
	it, err := cons.Messages(jetstream.PullMaxMessages(512))
	if err != nil {
		return res, fmt.Errorf("follow stream %s: %w", p.rcfg.Stream, err)
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return res, nil
			}
			return res, fmt.Errorf("follow stream %s: %w", p.rcfg.Stream, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return res, fmt.Errorf("follow stream %s: %w", p.rcfg.Stream, err)
		}
		res.Upto = meta.Sequence.Stream
		_, events, ok := p.rcfg.decode(msg, meta, reject)
		if !ok {
			continue
		}
		wrote := false
		for i := range events {
			res.Read++
			ev := &events[i]
			if p.written[Key(ev)] {
				continue
			}
			if p.take(ev, cfg) {
				if err := res.write(w, ev); err != nil {
					return res, err
				}
				p.written[Key(ev)] = true
				wrote = true
			}
		}
		if wrote {
			if err := flush(); err != nil {
				return res, err
			}
		}
	}
}

// take attributes a copy of ev as it comes, learning from it, and reports
// whether it is to be written.
func (p *pulled) take(ev *evidence.Event, cfg PullConfig) bool {
	cp := *ev
	key := attribution.SessionRecord(&cp)
	switch {
	case cp.Source == evidence.SourceLedger:
		p.id.FlagSession(&cp)
		if _, changed := p.id.ObserveFrom(&cp); changed {
			key = true
		}
	case attribution.Attributable(&cp):
		attribution.Apply(&cp, p.id.Attribute(&cp))
		if p.id.Learn(&cp) {
			key = true
		}
	}
	if key && (cfg.Until.IsZero() || !cp.Time.After(cfg.Until)) {
		return true
	}
	return p.mine(&cp) && p.within(cp.Time)
}
