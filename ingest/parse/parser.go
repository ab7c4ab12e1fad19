package parse

import (
	"errors"
	"io"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
)

// Framing says how a format's bytes split into records.
type Framing int

const (
	// Lines: one record per text line.
	Lines Framing = iota
	// JSON: one record per top-level JSON value; JSON Lines, pretty-printed
	// objects and arrays of objects are all accepted.
	JSON
	// Whole: the whole file is one record (archives, single-document logs).
	Whole
)

// String is how `cordon formats` names the framing.
func (f Framing) String() string {
	switch f {
	case JSON:
		return "JSON (lines, pretty-printed or array)"
	case Whole:
		return "whole file"
	}
	return "text lines"
}

// MaxRecord bounds one record. Log data is written by the agent under
// investigation; a multi-gigabyte "line" must not take the machine down.
const MaxRecord = 8 << 20

// Record is one unit of input handed to a parser.
type Record struct {
	Data   []byte // the record's bytes, exactly as read (no trailing newline)
	Line   int    // 1-based line number of the record's first byte
	Offset int64  // byte offset of the record in the (decompressed) stream
}

// Parser turns the records of one format into events. Parse fills the model
// fields it knows; the ingest driver sets Source, Format, Raw and Origin, and
// ID unless Parse set it (a Stager's requests name their own).
type Parser interface {
	// Format is the value of the event's format field, and the --format name.
	Format() string
	// Source is the event's source: evidence.SourceLedger, SourceProxy,
	// SourceSensor or SourceAudit.
	Source() string
	// Framing says how to split the input into records.
	Framing() Framing
	// Sniff reports whether a record looks like this format. It sees the
	// first non-empty record of a file and must not be fooled by a record of
	// another known format.
	Sniff(rec []byte) bool
	// Parse normalizes one record. An error rejects the record (it is kept in
	// rejects.jsonl with its reason); it never stops the file.
	Parse(rec Record) ([]evidence.Event, error)
}

// Relayer is a Parser whose records are events another cordon normalized
// already (package relay): the driver keeps the source and format each
// event names instead of the parser's.
type Relayer interface {
	Parser
	Relays() bool
}

// Relays reports whether p is a Relayer that relays.
func Relays(p Parser) bool {
	r, ok := p.(Relayer)
	return ok && r.Relays()
}

// ErrSkip is returned by Parse for a record that is valid but carries no
// evidence (a blank line, a comment). It is neither an event nor a reject.
var ErrSkip = errors.New("no evidence in record")

// StreamParser is a Parser for formats that are one large document (an
// Inspect eval log of hundreds of megabytes, a ZIP container): instead of
// framing the input into records, Stream hands it the input and the parser
// emits events as it reads, so that memory stays bounded. Its Framing only
// says what Sniff is shown (Whole: the leading bytes). Parse still works on a
// whole document in memory, for tests and fuzzing.
type StreamParser interface {
	Parser
	// ParseStream reads in to its end and hands out every event and every
	// part of the document that does not parse. Events come with ID, Raw and
	// Origin set (the driver fills Source, Format and normalizes). An error
	// from out must be returned as is; any other error ends the file.
	ParseStream(in Input, out Sink) error
}

// Input is a whole document for a StreamParser.
type Input struct {
	Name string      // the input's name, for origins
	R    io.Reader   // the bytes from the first one
	At   io.ReaderAt // random access to the same bytes; nil for stdin and compressed files
	Size int64       // how many bytes At holds; -1 without At
}

// Reject is a record that did not parse: kept with where it came from and
// why, never fatal.
type Reject struct {
	Origin string `json:"origin"` // file:line
	Offset int64  `json:"offset"`
	Format string `json:"format"`
	Reason string `json:"reason"`
	// Data is the record, or its first MaxRejectData bytes when Len says
	// it was longer.
	Data string `json:"data"`
	Len  int    `json:"len,omitempty"`
}

// MaxRejectData bounds the copy of a rejected record kept in
// rejects.jsonl: enough to see why it did not parse. The record itself
// stays in its file, at Origin and Offset; a hostile log of megabyte
// lines must not be copied whole into the workspace.
const MaxRejectData = 4 << 10

// Bounded returns r with only the start of a long record's data.
func (r Reject) Bounded() Reject {
	if len(r.Data) > MaxRejectData {
		r.Len = max(r.Len, len(r.Data))
		r.Data = strings.Clone(CutText(r.Data, MaxRejectData)) // not the whole record's memory
	}
	return r
}

// Sink receives what a stream yields. Event is called once per event, in
// input order (but for a Stager's requests, each given when its last stage
// is read, or at the end of the input); Reject once per malformed record.
type Sink interface {
	Event(ev evidence.Event) error
	Reject(r Reject) error
}

// KindModelCall is the kind of a call to a model: Inspect logs and GenAI
// spans record them, the ledger does not (its prompt records say what was
// sent).
const KindModelCall = "model_call"

// TagRoutine marks an event its parser judged routine (a cloud audit
// log's runs of read-only Describe and List calls, the API server's health
// probes). It is a judgement kept beside the event, never a reason to
// leave it out: every record is indexed, and a view that folds routine
// events counts them from the index (tags:routine).
const TagRoutine = "routine"

// TagStage, followed by the stage's name, marks the event of a request
// whose last stage was not read (a Kubernetes audit event's RequestReceived
// with no ResponseComplete after it): a later stage of the same request,
// read in this file or another, replaces it in the index.
const TagStage = "stage:"

// Stager is a Parser whose records can be stages of one request, each
// repeating the earlier ones with more (a Kubernetes audit event's
// RequestReceived, ResponseStarted, ResponseComplete and Panic). Parse sets
// the ID of a stage's event to the request's own (the same for every stage,
// whatever file or offset it is read from); the ingest driver keeps one
// event per request: the latest stage's.
type Stager interface {
	Parser
	// Stage ranks an event Parse gave an ID among its request's stages
	// (higher is later; 0 for an event that is no stage of a request), and
	// says whether it is a last stage, which nothing later replaces.
	Stage(ev *evidence.Event) (rank int, last bool)
}
