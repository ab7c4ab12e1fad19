package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// Position is where a stream stopped: the offset and line just past the last
// consumed record.
type Position struct {
	Offset int64
	Line   int
	// Streaming: the input is pretty-printed or array JSON, which can only
	// be resumed from its start.
	Streaming bool
}

// Stream parses r (named name in origins) with p from position at, sending
// events and rejects to sink. After each record, commit is told the position
// just past it (nil commit is allowed), or for a parse.Stager, the start of
// the oldest record whose request waits for its last stage (see stages). A
// final line without a newline that fails to parse is not consumed (a log
// being written may finish it later) unless it is a whole JSON value, which
// nothing appended can change; a HoldSink is told of it. A StreamParser
// reads the whole input itself (see streamDocument).
func Stream(r io.Reader, name string, p parse.Parser, at Position, sink parse.Sink, commit func(Position) error) (Position, error) {
	if at.Line == 0 {
		at.Line = 1
	}
	if sp, ok := p.(parse.StreamParser); ok {
		return streamDocument(r, name, sp, at, sink, commit)
	}
	rr := NewRecordReader(r, p.Framing(), at.Offset, at.Line)
	if p.Framing() == parse.JSON && at.Offset > 0 && !at.Streaming {
		// Resumed mid-file: the run that wrote the checkpoint read JSON
		// Lines (pretty or array JSON resumes only at its end), and an
		// unfinished last line must not pass for a truncated document.
		rr.mode = jsonLines
	}
	pos := at // just past the last record consumed
	relays := parse.Relays(p)
	st := newStages(p)
	merges, _ := sink.(MergeSink)
	// end gives the requests still waiting for a later stage as they stand:
	// a stage seen alone is an event too.
	end := func(final Position) (Position, error) {
		safe := st.safe(pos)
		for _, ev := range st.rest() {
			if err := sink.Event(ev); err != nil {
				return safe, err
			}
		}
		return final, nil
	}
	for {
		rec, ferr := rr.Next()
		if errors.Is(ferr, io.EOF) {
			// Trailing blank lines and an array's closing bracket are consumed.
			return end(Position{Offset: rr.Offset(), Line: rr.Line(), Streaming: rr.Streaming()})
		}
		if ferr != nil && rec.Data == nil {
			return st.safe(pos), fmt.Errorf("read %s: %w", name, ferr)
		}
		origin := name + ":" + strconv.Itoa(rec.Line)
		var evs []evidence.Event
		err := ferr
		if err == nil {
			evs, err = safeParse(p, rec)
		}
		if err == nil && len(evs) == 0 {
			// ErrSkip is how a parser says a record holds no evidence;
			// nothing at all is a record lost without a word.
			err = fmt.Errorf("the %s parser made no event of this record and gave no reason", p.Format())
		}
		for i := 0; err == nil && i < len(evs); i++ {
			err = parse.Normalize(&evs[i])
		}
		switch {
		case errors.Is(err, parse.ErrSkip):
		case err != nil:
			if p.Framing() != parse.Whole && isPartialTail(rr, rec) && !wholeJSON(p, rec) {
				if hs, ok := sink.(HoldSink); ok {
					hs.Held(parse.Reject{Origin: origin, Offset: rec.Offset, Format: p.Format(), Len: len(rec.Data),
						Reason: "no newline after it, and it does not parse (" + parse.CutText(parse.OneLine(err.Error()), maxReasonText) + "): left unread, as a line still being written; the next ingest reads it again"})
				}
				return end(pos)
			}
			rj := parse.Reject{Origin: origin, Offset: rec.Offset, Format: p.Format(), Reason: err.Error(), Data: string(rec.Data)}
			if errors.Is(err, errTooLong) {
				rj.Len = int(rr.Offset() - rec.Offset) // the bytes it spans, past what was read of it
			}
			if serr := sink.Reject(rj.Bounded()); serr != nil {
				return st.safe(pos), serr
			}
		default:
			if err := rejectHidden(sink, p, origin, rec, parse.FlagDuplicates(rec.Data, evs)); err != nil {
				return st.safe(pos), err
			}
			idData := idBytes(rec.Data, len(evs))
			for i := range evs {
				ev := &evs[i]
				own := ev.ID != "" // a request's, the same for each of its stages
				if !own {
					ev.ID = evidence.MakeID(p.Format(), rec.Offset, i, idData)
				}
				if ev.Source == "" {
					ev.Source = p.Source()
				}
				if !relays || ev.Format == "" {
					ev.Format = p.Format()
				}
				if ev.Raw == "" {
					ev.Raw = string(rec.Data)
				}
				if ev.Origin == "" {
					ev.Origin = origin
				}
				if !own || st == nil {
					if serr := sink.Event(*ev); serr != nil {
						return st.safe(pos), serr
					}
					if commit != nil && len(evs) > 1 {
						// a record of many events (a Records file) is
						// written in batches like any others, with the
						// checkpoint before it until its last: a crash
						// reads it again, and its events written already
						// are skipped by id
						if err := commit(st.safe(pos)); err != nil {
							return st.safe(pos), err
						}
					}
					continue
				}
				out, n := st.add(*ev, Position{Offset: rec.Offset, Line: rec.Line})
				if n > 0 && merges != nil {
					merges.Merged(n)
				}
				for _, ev := range out {
					if serr := sink.Event(ev); serr != nil {
						return st.safe(pos), serr
					}
				}
			}
		}
		pos = Position{Offset: rr.Offset(), Line: rr.Line(), Streaming: rr.Streaming()}
		if commit != nil {
			if err := commit(st.safe(pos)); err != nil {
				return st.safe(pos), err
			}
		}
	}
}

// rejectHidden keeps the values of duplicate keys that no event of the
// record holds (parse.FlagDuplicates): every one but the last, which the
// events were made from, is a reject with its bytes and where they are.
func rejectHidden(sink parse.Sink, p parse.Parser, origin string, rec parse.Record, hidden []parse.Dup) error {
	for _, d := range hidden {
		for k, sp := range d.Spans[:len(d.Spans)-1] {
			if sp[0] < 0 || sp[1] < sp[0] {
				continue
			}
			rj := parse.Reject{Origin: origin, Offset: rec.Offset + int64(sp[0]), Format: p.Format(), Data: string(rec.Data[sp[0]:sp[1]]),
				Reason: fmt.Sprintf("duplicate key %q, value %d of %d: the record's events were made from the last value (tagged %s%s), and none holds this one",
					d.Path, k+1, len(d.Spans), parse.TagDupKey, d.Path)}
			if err := sink.Reject(rj.Bounded()); err != nil {
				return err
			}
		}
	}
	return nil
}

// HoldSink is a Sink told of the last record Stream left unread (see
// Stream): neither an event nor a reject yet, and not to be lost without
// a word when the line is never finished.
type HoldSink interface {
	Held(r parse.Reject)
}

// wholeJSON reports a JSON record that is one complete value: whatever is
// appended after it is another record, so a final one without a newline is
// read (and rejected if it does not parse) like any other.
func wholeJSON(p parse.Parser, rec parse.Record) bool {
	return p.Framing() == parse.JSON && json.Valid(rec.Data)
}

// isPartialTail reports a last record that ended at end of input without a
// newline: possibly a line still being written.
func isPartialTail(rr *RecordReader, rec parse.Record) bool {
	if rr.Streaming() {
		return false
	}
	_, err := rr.r.Peek(1)
	end := rec.Offset + int64(len(rec.Data))
	return errors.Is(err, io.EOF) && rr.Offset() == end
}

// safeParse turns a parser panic on hostile input into a reject.
func safeParse(p parse.Parser, rec parse.Record) (evs []evidence.Event, err error) {
	defer func() {
		if r := recover(); r != nil {
			evs, err = nil, fmt.Errorf("parser %s failed: %v", p.Format(), r)
		}
	}()
	return p.Parse(rec)
}

// idDigestOver is the size past which a record of several events (a
// CloudTrail Records file) names its events by the record's digest rather
// than by its bytes: hashing an 8 MiB record once per each of its 50,000
// events took minutes. Smaller records keep the ids they always had.
const idDigestOver = 256 << 10

// idBytes is what a record's event ids are made from.
func idBytes(data []byte, events int) []byte {
	if events < 2 || len(data) <= idDigestOver {
		return data
	}
	sum := sha256.Sum256(data)
	return []byte("sha256:" + hex.EncodeToString(sum[:]))
}
