package fleet

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// rawFormat names the format of a raw record on subject: the token after
// cordon.raw, or the format of the first route whose filter holds it. ""
// when the subject carries no raw records.
func rawFormat(subject string, routes []Route) (string, error) {
	if rest, ok := strings.CutPrefix(subject, RawPrefix+"."); ok {
		tok, _, _ := strings.Cut(rest, ".")
		return Untoken(tok)
	}
	for _, r := range routes {
		if subjectMatches(r.Subject, subject) {
			return r.Format, nil
		}
	}
	return "", nil
}

// rawSink gathers what ingest's Stream makes of one message.
type rawSink struct {
	events  []evidence.Event
	rejects []parse.Reject
}

func (s *rawSink) Event(ev evidence.Event) error { s.events = append(s.events, ev); return nil }
func (s *rawSink) Reject(r parse.Reject) error {
	s.rejects = append(s.rejects, r.Bounded())
	return nil
}

// ParseRaw parses the records of one raw message with format's parser,
// exactly as ingest reads a file that holds them: the same framing (a
// message may hold several lines), normalization and ids. name stands for
// the file in origins. The message is read as a file that starts with it,
// so a record alone in a message gets the id it has as the first record
// of a file: a sensor that publishes a record twice publishes one event.
func ParseRaw(parsers []parse.Parser, format, name string, data []byte) ([]evidence.Event, []parse.Reject, error) {
	p, err := ingest.ByFormatIn(parsers, format)
	if err != nil {
		return nil, nil, err
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// a message is whole: its last line is not one still being written
		data = append(bytes.Clone(data), '\n')
	}
	var sink rawSink
	if _, err := ingest.Stream(bytes.NewReader(data), name, p, ingest.Position{}, &sink, nil); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", name, err)
	}
	return sink.events, sink.rejects, nil
}
