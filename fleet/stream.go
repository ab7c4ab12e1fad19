package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultStream is the stream's name unless one is given.
const DefaultStream = "CORDON_EVENTS"

// StreamConfig is what cordon asks of the stream it ships to.
type StreamConfig struct {
	Name string // default DefaultStream
	// Subjects besides EventsSubjects and RawSubjects: those of raw
	// publishers with their own subjects ("falco.>"), for Routes.
	Subjects []string
	// Duplicates is JetStream's duplicate window (default two minutes,
	// the server's): a message whose Nats-Msg-Id the stream took within
	// it is acknowledged as a duplicate and not stored again.
	Duplicates time.Duration
	MaxAge     time.Duration // 0 keeps messages until the limits below
	MaxBytes   int64         // 0: no limit
	Replicas   int           // default 1; 3 on a cluster
}

func (c StreamConfig) name() string {
	if c.Name == "" {
		return DefaultStream
	}
	return c.Name
}

func (c StreamConfig) subjects() []string {
	out := []string{EventsSubjects, RawSubjects}
	for _, s := range c.Subjects {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// EnsureStream creates the stream, file-backed, or checks the one there:
// an existing stream is used as it is when it already covers cordon's
// subjects (cordon.> covers both; an operator may have given it more replicas or limits), and
// refused when it does not, since events published to a subject no stream
// takes are lost.
func EnsureStream(ctx context.Context, js jetstream.JetStream, c StreamConfig) (jetstream.Stream, error) {
	s, err := js.Stream(ctx, c.name())
	if err == nil {
		have := s.CachedInfo().Config.Subjects
		if srcs := s.CachedInfo().Config.Sources; len(have) == 0 && len(srcs) > 0 {
			var names []string
			for _, src := range srcs {
				names = append(names, src.Name)
			}
			return nil, fmt.Errorf("stream %s takes no subject: it sources %s; ship to one of those (--stream)", c.name(), strings.Join(names, ", "))
		}
		for _, want := range c.subjects() {
			if !slices.ContainsFunc(have, func(h string) bool { return subjectMatches(h, want) }) {
				return nil, fmt.Errorf("stream %s takes %v, not %s: add the subject to it (nats stream edit) or name another stream", c.name(), have, want)
			}
		}
		return s, nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, streamErr(js, c.name(), err)
	}
	replicas := max(c.Replicas, 1)
	maxBytes := c.MaxBytes
	if maxBytes <= 0 {
		maxBytes = -1 // JetStream's "no limit"
	}
	s, err = js.CreateStream(ctx, jetstream.StreamConfig{
		Name:        c.name(),
		Description: "cordon evidence: normalized events and raw sensor records",
		Subjects:    c.subjects(),
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Duplicates:  c.Duplicates,
		MaxAge:      c.MaxAge,
		MaxBytes:    maxBytes,
		Replicas:    replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("create stream %s: %w", c.name(), err)
	}
	return s, nil
}

// streamErr is err from asking about stream, with the reason when the
// server refused the request (it does not answer a request it refuses,
// so the asker only sees its time run out; the refusal comes apart).
func streamErr(js jetstream.JetStream, stream string, err error) error {
	last := js.Conn().LastError()
	if last != nil && strings.Contains(last.Error(), "Permissions Violation") && strings.Contains(last.Error(), "."+stream) &&
		(errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout)) {
		return fmt.Errorf("stream %s: this user may not ask of it (%v); on the documented bus (docs/nats/cordon-bus.conf) shippers ship to CORDON_EVIDENCE, the gateway's ledger to CORDON_LEDGER (--stream), and watchers and consoles read CORDON_EVENTS", stream, last)
	}
	return fmt.Errorf("stream %s: %w", stream, err)
}
