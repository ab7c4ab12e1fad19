package inspect

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// inspectSample gathers one sample of an eval log (one epoch of one dataset
// sample: one agent session) while it is read. The sample's uuid and its
// attachments come after its events, so events wait here, trimmed to their
// fields, until the sample ends.
type inspectSample struct {
	p      parser
	h      *inspectHeader
	origin string // file#samples/3 or file#samples/3_epoch_1.json

	id, epoch, uuid        string
	input                  string // the sample's input text, or an attachment reference
	meta                   map[string]any
	sandbox                *inspectSandbox
	startedAt, completedAt string
	err                    *inspectError
	limit                  *inspectLimit
	outModel               string // the exact model snapshot that answered
	totalTime              json.Number

	events, msgs []inspectPending
	hadEvents    bool // the transcript has events, so messages are not read for tool calls
	body         bool // events or messages were seen: later attachments can be filtered
	first, last  time.Time
	need         map[string]bool   // attachments referenced by pending events
	attach       map[string]string // their content, cut
	scorers      map[string]string // scorer span id -> scorer name
	rejects      []parse.Reject
}

// inspectError is an EvalError, of a sample or an ErrorEvent.
type inspectError struct {
	Message string `json:"message"`
}

// inspectLimit is an EvalSampleLimit: the limit that ended a sample.
type inspectLimit struct {
	Type  string      `json:"type"`
	Limit json.Number `json:"limit"`
}

// inspectPending is an event waiting for its sample's identity.
type inspectPending struct {
	ev      evidence.Event
	path    string // within the sample: events/17, events/17/events/2, messages/4
	sub     int    // n-th event made from that part
	untimed bool   // from a message: takes the session's start time
}

// maxAttachment bounds how much of one attachment is kept to resolve a
// reference in a command line, a path or a message.
const maxAttachment = 16 << 10

func newInspectSample(p parser, h *inspectHeader, origin string) *inspectSample {
	return &inspectSample{p: p, h: h, origin: origin, need: map[string]bool{}, attach: map[string]string{}, scorers: map[string]string{}}
}

// walk reads one EvalSample object field by field.
func (s *inspectSample) walk(dec *json.Decoder) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return err
		}
		switch key {
		case "id":
			err = decodeText(dec, &s.id)
		case "epoch":
			err = decodeText(dec, &s.epoch)
		case "uuid":
			err = decodeText(dec, &s.uuid)
		case "started_at":
			err = decodeText(dec, &s.startedAt)
		case "completed_at":
			err = decodeText(dec, &s.completedAt)
		case "input":
			var v json.RawMessage
			if err = dec.Decode(&v); err == nil {
				s.input = inputText(v)
				s.noteRefs(s.input)
			}
		case "metadata":
			err = dec.Decode(&s.meta)
		case "sandbox":
			err = dec.Decode(&s.sandbox)
		case "error":
			err = dec.Decode(&s.err)
		case "limit":
			err = dec.Decode(&s.limit)
		case "total_time":
			err = dec.Decode(&s.totalTime)
		case "output":
			var o struct{ Model string }
			if err = dec.Decode(&o); err == nil {
				s.outModel = o.Model
			}
		case "messages":
			s.body = true
			err = walkArray(dec, func(i int) error {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return err
				}
				s.message("messages/"+strconv.Itoa(i), raw)
				return nil
			})
		case "events":
			s.body = true
			err = walkArray(dec, func(i int) error {
				var raw json.RawMessage
				if err := dec.Decode(&raw); err != nil {
					return err
				}
				s.hadEvents = true
				s.event("events/"+strconv.Itoa(i), raw)
				return nil
			})
		case "attachments":
			err = s.walkAttachments(dec)
		default:
			err = skipValue(dec)
		}
		if tolerable(err) {
			s.reject(key, nil, "sample field "+key+": "+err.Error())
			continue
		}
		if err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

// walkAttachments keeps the attachments pending events refer to (all of
// them, cut, when they come before the events).
func (s *inspectSample) walkAttachments(dec *json.Decoder) error {
	if ok, err := openValue(dec, '{'); !ok {
		return err
	}
	for dec.More() {
		key, err := objectKey(dec)
		if err != nil {
			return err
		}
		if s.body && !s.need[key] {
			if err := skipValue(dec); err != nil {
				return err
			}
			continue
		}
		var v string
		if err := dec.Decode(&v); err != nil && !tolerable(err) {
			return err
		}
		s.attach[key] = parse.CutText(v, maxAttachment)
	}
	return expectDelim(dec, '}')
}

// add queues an event of the sample and notes the attachments it names.
func (s *inspectSample) add(pe inspectPending, fromMessages bool) {
	for _, f := range []string{pe.ev.Message, pe.ev.Cmdline, pe.ev.Path, pe.ev.URL} {
		s.noteRefs(f)
	}
	if fromMessages {
		s.msgs = append(s.msgs, pe)
	} else {
		s.events = append(s.events, pe)
	}
}

func (s *inspectSample) reject(path string, raw []byte, reason string) {
	s.rejects = append(s.rejects, parse.Reject{Origin: s.origin + "/" + path, Reason: reason, Data: parse.CutText(string(raw), parse.MaxRecord)})
}

// seen widens the sample's time span with an event's times.
func (s *inspectSample) seen(ts ...time.Time) {
	for _, t := range ts {
		if t.IsZero() {
			continue
		}
		if s.first.IsZero() || t.Before(s.first) {
			s.first = t
		}
		if t.After(s.last) {
			s.last = t
		}
	}
}
