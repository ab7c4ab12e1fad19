package fleet

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/nats-io/nats.go"
)

// Headers of an event message. Nats-Msg-Id is JetStream's own: the stream
// drops a second message with the same id within its duplicate window.
const (
	HeaderMsgID = "Nats-Msg-Id"
	// HeaderSchema names the body's shape; a reader refuses a shape it
	// does not know rather than misreading it.
	HeaderSchema = "Cordon-Schema"
	// SchemaEvent is the one shape so far: the body is an evidence.Event
	// as JSON (the keys of --json output), raw record and origin included.
	SchemaEvent = "event/1"
)

// ErrMessage marks a message on the bus that is not an event cordon can
// read: its reason says why. It is rejected, never fatal to a reader.
var ErrMessage = errors.New("malformed message")

// Key is what an event is de-duplicated by, on the stream (Nats-Msg-Id)
// and in a reader: its id, and for an earlier stage of a request (an event
// tagged parse.TagStage) that stage too, so that the request's later stage,
// which keeps the id, is not taken for a copy of it.
func Key(ev *evidence.Event) string {
	for _, t := range ev.Tags {
		if strings.HasPrefix(t, parse.TagStage) {
			return ev.ID + "~" + t
		}
	}
	return ev.ID
}

// Encode makes the message that carries ev.
func Encode(ev *evidence.Event) (*nats.Msg, error) {
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("encode event %s: %w", ev.ID, err)
	}
	m := nats.NewMsg(EventSubject(ev.Source, ev.Format))
	m.Data = data
	m.Header.Set(HeaderMsgID, Key(ev))
	m.Header.Set(HeaderSchema, SchemaEvent)
	return m, nil
}

// decodeOptions read an event as encoding/json does (names matched
// without regard to case, invalid UTF-8 in a string taken as U+FFFD),
// except that a name given twice is refused: two readers could each take
// another of its values. The decoder (the prototype of encoding/json/v2)
// reads an event in one pass where encoding/json validates the whole
// message first and then decodes it; decoding was a watcher's largest
// cost (docs/performance.md).
var decodeOptions = jsonv2.JoinOptions(jsonv2.MatchCaseInsensitiveNames(true), jsontext.AllowInvalidUTF8(true))

// Decode reads the event a message on subject carries. Whoever can publish
// on the bus wrote it: an event is accepted only with the fields every
// event has, and with the source and format its subject names.
func Decode(subject string, hdr nats.Header, data []byte) (evidence.Event, error) {
	var ev evidence.Event
	err := decodeTo(&ev, subject, hdr, data)
	return ev, err
}

// decodeTo is Decode into ev, which is zero.
func decodeTo(ev *evidence.Event, subject string, hdr nats.Header, data []byte) error {
	if s := hdr.Get(HeaderSchema); s != "" && s != SchemaEvent {
		return fmt.Errorf("%w: schema %q, this cordon reads %s", ErrMessage, s, SchemaEvent)
	}
	if !decodeFast(data, ev) {
		*ev = evidence.Event{}
		if err := jsonv2.Unmarshal(data, ev, decodeOptions); err != nil {
			return fmt.Errorf("%w: not an event: %v", ErrMessage, err)
		}
	}
	switch {
	case ev.ID == "":
		return fmt.Errorf("%w: event has no id", ErrMessage)
	case ev.Time.IsZero():
		return fmt.Errorf("%w: event %s has no time", ErrMessage, ev.ID)
	case ev.Kind == "":
		return fmt.Errorf("%w: event %s has no kind", ErrMessage, ev.ID)
	}
	if !isEventSubject(subject, ev.Source, ev.Format) {
		return fmt.Errorf("%w: event %s of source %q and format %q came on %s, not %s", ErrMessage, ev.ID, ev.Source, ev.Format, subject, EventSubject(ev.Source, ev.Format))
	}
	if id := hdr.Get(HeaderMsgID); id != "" && id != Key(ev) {
		return fmt.Errorf("%w: message id %q is not event %s's key %q", ErrMessage, id, ev.ID, Key(ev))
	}
	return nil
}
