package ingest

import (
	"errors"

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

// Record is one unit of input handed to a parser.
type Record struct {
	Data   []byte // the record's bytes, exactly as read (no trailing newline)
	Line   int    // 1-based line number of the record's first byte
	Offset int64  // byte offset of the record in the (decompressed) stream
}

// Parser turns the records of one format into events. Parse fills the model
// fields it knows; the ingest driver sets ID, Source, Format, Raw and Origin.
type Parser interface {
	// Format is the value of the event's format field, and the --format name.
	Format() string
	// Source is the event's source: evidence.SourceLedger, SourceProxy or SourceSensor.
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

// ErrSkip is returned by Parse for a record that is valid but carries no
// evidence (a blank line, a comment). It is neither an event nor a reject.
var ErrSkip = errors.New("no evidence in record")
