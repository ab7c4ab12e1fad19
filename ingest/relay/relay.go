package relay

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// Format is the format name of a file of normalized events, one JSON
// object a line: the body of a stream's event message (docs/fleet.md).
const Format = "cordon-event"

type parser struct{}

// New returns the parser for files of normalized events.
func New() parse.Parser { return parser{} }

func (parser) Format() string         { return Format }
func (parser) Source() string         { return "any" }
func (parser) Framing() parse.Framing { return parse.JSON }

// Relays says the driver keeps each event's own source and format: the
// record is an event, not a log line of one format.
func (parser) Relays() bool { return true }

// idPattern is an event id as evidence.MakeID writes it.
var idPattern = regexp.MustCompile(`^[0-9a-f]{16}$`)

var sources = map[string]bool{
	evidence.SourceLedger: true, evidence.SourceProxy: true,
	evidence.SourceSensor: true, evidence.SourceAudit: true,
}

// probe is what Sniff looks for: the fields every normalized event has,
// which no other known format has together (a ledger record has v, ts
// and type; Falco a rule and a priority).
type probe struct {
	ID     string `json:"id"`
	Time   string `json:"time"`
	Kind   string `json:"kind"`
	Source string `json:"source"`
	Format string `json:"format"`
	Raw    string `json:"raw"`
}

func (parser) Sniff(rec []byte) bool {
	var p probe
	if parse.Unmarshal(rec, &p) != nil {
		return false
	}
	return idPattern.MatchString(p.ID) && p.Time != "" && p.Kind != "" && sources[p.Source] &&
		p.Format != "" && p.Format != Format && p.Raw != ""
}

// Parse reads one event. Whoever wrote the file (or published the event
// it came from) chose every field: an event is accepted only with the
// fields every event has, an id of the shape ingest makes, a known source
// and a format other than this one.
func (parser) Parse(rec parse.Record) ([]evidence.Event, error) {
	var ev evidence.Event
	if err := parse.Unmarshal(rec.Data, &ev); err != nil {
		return nil, fmt.Errorf("not an event: %w", err)
	}
	switch {
	case !idPattern.MatchString(ev.ID):
		return nil, fmt.Errorf("event id %q is not 16 hex digits", parse.CutText(ev.ID, 40))
	case ev.Time.IsZero():
		return nil, fmt.Errorf("event %s has no time", ev.ID)
	case ev.Kind == "":
		return nil, fmt.Errorf("event %s has no kind", ev.ID)
	case !sources[ev.Source]:
		return nil, fmt.Errorf("event %s has source %q, not ledger, proxy, sensor or audit", ev.ID, parse.CutText(ev.Source, 40))
	case ev.Format == "" || ev.Format == Format:
		return nil, errors.New("event " + ev.ID + " names no format of its own")
	case ev.Raw == "":
		return nil, fmt.Errorf("event %s has no raw record", ev.ID)
	}
	return []evidence.Event{ev}, nil
}
