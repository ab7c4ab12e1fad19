package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// FollowFindings hands fn every finding message of the findings stream,
// from its first to the last stored, then each one as it is stored, until
// ctx ends: the state the watchers published, then its changes, through
// one ephemeral ordered consumer on cordon.findings.> (nothing
// acknowledged, no consumer left behind), so no change falls between
// reading the state and subscribing to it. status says what it is doing:
// "reading N findings" until it has read what the stream held when it
// began, "" once live, and what went wrong while it retries (every
// second: a stream not made yet, a server lost). A message that does not
// decode is skipped and counted in the status.
func FollowFindings(ctx context.Context, js jetstream.JetStream, stream string, fn func(Message), status func(string)) error {
	if stream == "" {
		stream = DefaultFindingsStream
	}
	for {
		err := followFindings(ctx, js, stream, fn, status)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		status(fmt.Sprintf("findings stream %s: %v; retrying", stream, err))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func followFindings(ctx context.Context, js jetstream.JetStream, stream string, fn func(Message), status func(string)) error {
	s, err := js.Stream(ctx, stream)
	if err != nil {
		return err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return err
	}
	upto := info.State.LastSeq
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{FindingsPrefix + ".>"},
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return err
	}
	it, err := cons.Messages()
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, it.Stop)
	defer stop()
	defer it.Stop()
	bad := 0
	say := func(seq uint64) {
		s := ""
		if seq < upto {
			s = fmt.Sprintf("reading %d findings", upto)
		}
		if bad > 0 {
			s += fmt.Sprintf(" (%d unreadable messages skipped)", bad)
		}
		status(s)
	}
	if n, err := cons.Info(ctx); err == nil && n.NumPending == 0 {
		upto = 0 // nothing on these subjects yet: live at once
	}
	say(0)
	for {
		msg, err := it.Next()
		if err != nil {
			return err
		}
		meta, err := msg.Metadata()
		if err != nil {
			return err
		}
		var m Message
		if err := json.Unmarshal(msg.Data(), &m); err != nil || m.ID == "" {
			bad++
		} else {
			fn(m)
		}
		if meta.Sequence.Stream >= upto || meta.NumPending == 0 {
			upto = 0
		}
		say(meta.Sequence.Stream)
	}
}
