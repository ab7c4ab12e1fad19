package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A message of the events' stream that does not read (fleet.MessageReject:
// where, why, its first bytes) is published by the watcher that read it
// on cordon.rejects.<stream>, into a stream of its own, so that what was
// not judged is on the bus beside what was. Its Nats-Msg-Id is its
// origin: the watchers of several partitions, which all read it, publish
// it once within the duplicate window.
const (
	RejectsPrefix = "cordon.rejects"
	// DefaultRejectsStream takes them (created, file-backed, if missing).
	DefaultRejectsStream = "CORDON_REJECTS"
)

// RejectSubject is where the rejects of the events' stream are published.
func RejectSubject(stream string) string { return RejectsPrefix + "." + fleet.Token(stream) }

// ensureRejectsStream creates the rejects' stream if it is missing.
func ensureRejectsStream(ctx context.Context, js jetstream.JetStream, replicas int) error {
	_, err := js.Stream(ctx, DefaultRejectsStream)
	if err == nil {
		return nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("stream %s: %w", DefaultRejectsStream, err)
	}
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{
		Name:        DefaultRejectsStream,
		Description: "cordon: messages of the events' stream that did not read, with the reason",
		Subjects:    []string{RejectsPrefix + ".>"},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Replicas:    max(replicas, 1),
	})
	if err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		return fmt.Errorf("create stream %s: %w", DefaultRejectsStream, err)
	}
	return nil
}

// publishReject publishes m; a failure is logged, never fatal: the
// message is terminated on the events' stream whatever becomes of this.
func (w *Watcher) publishReject(ctx context.Context, m fleet.MessageReject) {
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	msg := nats.NewMsg(RejectSubject(w.cfg.Stream))
	msg.Data = data
	msg.Header.Set(fleet.HeaderMsgID, "reject:"+m.Origin)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := w.js.PublishMsg(pctx, msg); err != nil {
		w.cfg.Log.Warn("reject not published", "origin", m.Origin, "err", err)
		return
	}
	w.count(func(s *Stats) { s.Rejected++ })
}
