package ingest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cordon-ir/cordon/ingest/parse"
)

// ErrUnknownFormat: no parser recognized the input.
var ErrUnknownFormat = errors.New("unknown format")

// sniffWindow is how much of a file sniffing looks at.
const sniffWindow = 256 << 10

// Sniff picks the parser for the input behind br from its first record,
// without consuming it. Container formats (whole-file parsers) are tried on
// the leading bytes, line and JSON formats on the first non-blank record.
func Sniff(br *bufio.Reader, parsers []parse.Parser) (parse.Parser, error) {
	head, err := br.Peek(sniffWindow)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, fmt.Errorf("%w: input is empty", ErrUnknownFormat)
	}
	firstLine, firstJSON := firstRecords(head)
	for _, p := range parsers {
		var rec []byte
		switch p.Framing() {
		case parse.Whole:
			rec = head
		case parse.JSON:
			rec = firstJSON
			if rec == nil && bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")) {
				// one object larger than the window (a CloudTrail
				// Records file): its start is all there is to go on
				rec = head
			}
		default:
			rec = firstLine
		}
		if rec != nil && p.Sniff(rec) {
			return p, nil
		}
	}
	return nil, fmt.Errorf("%w: no parser recognizes %q; name one with --format", ErrUnknownFormat, preview(firstLine))
}

// firstRecords returns the first non-blank line and the first JSON record
// (an object of JSON Lines, or the first element of pretty/array JSON).
func firstRecords(head []byte) (line, obj []byte) {
	rr := NewRecordReader(bytes.NewReader(head), parse.Lines, 0, 1)
	if rec, err := rr.Next(); err == nil {
		line = rec.Data
	}
	rr = NewRecordReader(bytes.NewReader(head), parse.JSON, 0, 1)
	if rec, err := rr.Next(); err == nil {
		obj = rec.Data
	}
	return line, obj
}

func preview(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
