package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
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

// outgoing is a message to publish, the Mark it leaves behind and its
// place among the messages about its finding (1 for the first).
type outgoing struct {
	id     string
	label  string // what it is, in errors ("": finding <id>)
	change string
	mark   detect.Mark
	seq    int
	msg    *nats.Msg
	// finding is what was announced (nil for a withdrawal)
	finding *detect.Finding
}

// newMessage builds the seq'th message about f, announcing change. Its
// Nats-Msg-Id lets the findings stream drop a copy published again after
// a restart within its duplicate window: a finding is created once by its
// id; an update or a withdrawal is named by its place and the state it
// announces, so that a finding coming back to a state it had before is
// announced again (by the state alone, the stream dropped it, and its
// readers kept the state in between).
//
// The message names at most maxMessageEvents of f's events and fits
// limit, the server's max_payload (fitFinding).
func newMessage(f detect.Finding, change string, m detect.Mark, seq int, limit int64) (outgoing, error) {
	id := change + ":" + f.ID
	if change != Created {
		id += ":" + strconv.Itoa(seq) + ":" + markDigest(m)
	}
	// the headers as the client writes them: NATS/1.0, the id, the blank line
	headers := int64(len("NATS/1.0\r\n"+fleet.HeaderMsgID+": \r\n\r\n") + len(id))
	data, err := fitFinding(f, change, maxMessageEvents, limit, headers)
	if err != nil {
		return outgoing{}, err
	}
	msg := nats.NewMsg(Subject(f.Severity, f.Agent))
	msg.Data = data
	msg.Header.Set(fleet.HeaderMsgID, id)
	return outgoing{id: f.ID, change: change, mark: m, seq: seq, msg: msg, finding: &f}, nil
}

// encodeMessage is the message announcing change of f.
func encodeMessage(f detect.Finding, change string) ([]byte, error) {
	if f.Events == nil {
		f.Events = []string{}
	}
	data, err := json.Marshal(Message{Finding: f, Change: change})
	if err != nil {
		return nil, fmt.Errorf("encode finding %s: %w", f.ID, err)
	}
	return data, nil
}

func (o outgoing) name() string {
	if o.label != "" {
		return o.label
	}
	return "finding " + o.id
}

// withdrawal names a withdrawn finding from the Mark last published.
func withdrawal(id string, m detect.Mark, seq int, limit int64) (outgoing, error) {
	o, err := newMessage(detect.Finding{ID: id, Detector: m.Detector, Agent: m.Agent, Severity: m.Severity,
		Start: m.Start, End: m.End, Matches: m.Matches}, Withdrawn, m, seq, limit)
	o.finding = nil
	return o, err
}

// announce is what to publish of found against what was published: a
// message per finding created, updated or withdrawn. A finding withdrawn
// and found again is announced as updated: it was created once.
func (s *state) announce(found []detect.Finding) ([]outgoing, error) {
	ch := detect.Diff(s.marks, found)
	if len(ch.Created)+len(ch.Updated)+len(ch.Withdrawn) == 0 {
		return nil, nil
	}
	byID := make(map[string]*detect.Finding, len(found))
	for i := range found {
		byID[found[i].ID] = &found[i]
	}
	var out []outgoing
	for _, part := range []struct {
		change string
		ids    []string
	}{{Created, ch.Created}, {Updated, ch.Updated}, {Withdrawn, ch.Withdrawn}} {
		for _, id := range part.ids {
			var o outgoing
			var err error
			seq := s.seq[id] + 1
			switch {
			case part.change == Withdrawn:
				o, err = withdrawal(id, s.marks[id], seq, s.maxPayload)
			case part.change == Created && s.seq[id] > 0:
				o, err = newMessage(*byID[id], Updated, detect.MarkOf(byID[id]), seq, s.maxPayload)
			default:
				o, err = newMessage(*byID[id], part.change, detect.MarkOf(byID[id]), seq, s.maxPayload)
			}
			if err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	}
	return out, nil
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
