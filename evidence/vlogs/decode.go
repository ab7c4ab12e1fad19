package vlogs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/cordon-ir/cordon/evidence"
)

// Reading events back is most of a replay on this store: every row is a
// JSON object whose fieldEvent holds the event whole, quoted: its text
// form (evidence.AppendEventText) or, for an event whose text is not
// valid UTF-8 and in cases written before the text form, its own JSON.
// Decoding rows and events with encoding/json (a map per row, then the
// event) was half of the detectors' time on a million events, its
// validation pass alone a sixth. The rows are read as a stream of tokens
// instead, the event unquoted into a buffer kept from row to row and
// decoded from its text form, or by the v2 decoder from its JSON. That
// gives what encoding/json gave on what cordon stores: the event's JSON is
// cordon's own (json.Marshal at ingest), names as written; invalid UTF-8
// becomes U+FFFD either way (TestEachEventReadsAsBefore).

// decodeOptions are encoding/json's leniencies: invalid UTF-8 becomes
// U+FFFD, and a name given twice is not an error.
var decodeOptions = jsonv2.JoinOptions(jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))

// queryEvents runs a LogsQL query whose rows hold fieldEvent and calls fn
// with each row's event.
func (c *client) queryEvents(ctx context.Context, q string, fn func(evidence.Event) error) error {
	rc, err := c.post(ctx, q)
	if err != nil {
		return err
	}
	defer rc.Close()
	return eachEvent(rc, fn)
}

// eachEvent reads rows from r and calls fn with each row's event.
func eachEvent(r io.Reader, fn func(evidence.Event) error) error {
	dec := jsontext.NewDecoder(r, decodeOptions)
	var buf []byte
	for {
		switch k := dec.PeekKind(); k {
		case 0:
			if _, err := dec.ReadToken(); err == io.EOF {
				return nil
			} else if err != nil {
				return fmt.Errorf("victorialogs answer: %w", err)
			}
		case '{':
		default:
			return fmt.Errorf("victorialogs answer: a row that is not an object (%v)", k)
		}
		if _, err := dec.ReadToken(); err != nil {
			return fmt.Errorf("victorialogs answer: %w", err)
		}
		found := false
		var ev evidence.Event
		for dec.PeekKind() != '}' {
			name, err := dec.ReadValue()
			if err != nil {
				return fmt.Errorf("victorialogs answer: %w", err)
			}
			if !bytes.Equal(name, quotedEvent) {
				if err := dec.SkipValue(); err != nil {
					return fmt.Errorf("victorialogs answer: %w", err)
				}
				continue
			}
			v, err := dec.ReadValue()
			if err != nil {
				return fmt.Errorf("victorialogs answer: %w", err)
			}
			if buf, err = unquote(buf[:0], v); err != nil {
				return fmt.Errorf("victorialogs record: %w", err)
			}
			if err := decodeEvent(buf, &ev); err != nil {
				return err
			}
			found = true
		}
		if _, err := dec.ReadToken(); err != nil {
			return fmt.Errorf("victorialogs answer: %w", err)
		}
		if !found {
			return fmt.Errorf("victorialogs record without %s", fieldEvent)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
}

var quotedEvent = []byte(`"` + fieldEvent + `"`)

// unquote appends the text of the JSON string v to dst. A string holding
// invalid UTF-8 (which cordon never writes there) is read as
// encoding/json reads it.
func unquote(dst []byte, v jsontext.Value) ([]byte, error) {
	if v.Kind() != '"' {
		return dst, fmt.Errorf("%s is not a string", fieldEvent)
	}
	out, err := jsontext.AppendUnquote(dst, v)
	if err == nil {
		return out, nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return dst, err
	}
	return append(dst, s...), nil
}

// decodeEvent reads an event as a record keeps it whole (wholeEvent): its
// text form, or its JSON (an event whose text is not valid UTF-8, and
// every event of a case written before the text form).
func decodeEvent(b []byte, ev *evidence.Event) error {
	if evidence.IsEventText(b) {
		if err := evidence.DecodeEventText(b, ev); err != nil {
			return fmt.Errorf("victorialogs record: %w", err)
		}
		return nil
	}
	if err := jsonv2.Unmarshal(b, ev, decodeOptions); err != nil {
		return fmt.Errorf("victorialogs record: %w", err)
	}
	ev.Time = ev.Time.UTC()
	return nil
}
