package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Findings go to cordon.findings.<severity>.<agent>, each token escaped
// as fleet.Token escapes it, into a stream of their own.
const (
	FindingsPrefix = "cordon.findings"
	// DefaultFindingsStream takes them (created, file-backed, if missing).
	DefaultFindingsStream = "CORDON_FINDINGS"
)

// Changes a message announces.
const (
	Created   = "created"
	Updated   = "updated"
	Withdrawn = "withdrawn"
)

// Message is a published finding: the finding as cordon findings --json
// prints it, and what happened to it. A withdrawn finding is named by what
// was last published of it (its id, detector, agent, severity, span and
// matches); its events are in the message that published that state.
type Message struct {
	detect.Finding
	Change string `json:"change"`
}

// Subject is where a finding of severity about agent is published.
func Subject(severity, agent string) string {
	return FindingsPrefix + "." + fleet.Token(severity) + "." + fleet.Token(agent)
}

// EnsureFindingsStream creates the findings stream if it is missing, kept
// by replicas servers (0: one).
func EnsureFindingsStream(ctx context.Context, js jetstream.JetStream, name string, replicas int) error {
	_, err := js.Stream(ctx, name)
	if err == nil {
		return nil
	}
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("stream %s: %w", name, err)
	}
	_, err = js.CreateStream(ctx, jetstream.StreamConfig{
		Name:        name,
		Description: "cordon findings: created, updated, withdrawn",
		Subjects:    []string{FindingsPrefix + ".>"},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Replicas:    max(replicas, 1),
	})
	if err != nil {
		return fmt.Errorf("create stream %s: %w", name, err)
	}
	return nil
}

// outgoing is a message to publish, and the Mark it leaves behind (a
// withdrawn finding leaves none).
type outgoing struct {
	id     string
	label  string // what it is, in errors ("": finding <id>)
	change string
	mark   detect.Mark
	msg    *nats.Msg
}

// newMessage builds the message announcing change of f. Its Nats-Msg-Id
// lets the findings stream drop a copy published again after a restart
// within its duplicate window: a finding is created once by its id, and
// updated or withdrawn once per state.
func newMessage(f detect.Finding, change string, m detect.Mark) (outgoing, error) {
	if f.Events == nil {
		f.Events = []string{}
	}
	data, err := json.Marshal(Message{Finding: f, Change: change})
	if err != nil {
		return outgoing{}, fmt.Errorf("encode finding %s: %w", f.ID, err)
	}
	msg := nats.NewMsg(Subject(f.Severity, f.Agent))
	msg.Data = data
	id := change + ":" + f.ID
	if change != Created {
		id += ":" + markDigest(m)
	}
	msg.Header.Set(fleet.HeaderMsgID, id)
	return outgoing{id: f.ID, change: change, mark: m, msg: msg}, nil
}

func (o outgoing) name() string {
	if o.label != "" {
		return o.label
	}
	return "finding " + o.id
}

// withdrawal names a withdrawn finding from the Mark last published.
func withdrawal(id string, m detect.Mark) (outgoing, error) {
	return newMessage(detect.Finding{ID: id, Detector: m.Detector, Agent: m.Agent, Severity: m.Severity,
		Start: m.Start, End: m.End, Matches: m.Matches}, Withdrawn, m)
}

func markDigest(m detect.Mark) string {
	b, _ := json.Marshal(m)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8])
}

// send publishes msgs and waits for the server to acknowledge each; dup
// reports, per message, whether the stream already held its id.
func send(ctx context.Context, js jetstream.JetStream, msgs []outgoing) (dup []bool, err error) {
	futures := make([]jetstream.PubAckFuture, len(msgs))
	for i := range msgs {
		if futures[i], err = js.PublishMsgAsync(msgs[i].msg); err != nil {
			return nil, fmt.Errorf("publish %s: %w", msgs[i].name(), err)
		}
	}
	dup = make([]bool, len(msgs))
	timeout := time.NewTimer(30 * time.Second)
	defer timeout.Stop()
	for i, f := range futures {
		select {
		case ack := <-f.Ok():
			dup[i] = ack.Duplicate
		case err := <-f.Err():
			return nil, fmt.Errorf("publish %s: %w", msgs[i].name(), err)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timeout.C:
			return nil, fmt.Errorf("publish %s: no acknowledgement in 30s", msgs[i].name())
		}
	}
	return dup, nil
}
