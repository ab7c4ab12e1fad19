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

// sniffRecords is how many of an input's first records sniffing tries
// when the first is recognized by no parser.
const sniffRecords = 16

// Sniff picks the parser for the input behind br from its first record,
// without consuming it. Container formats (whole-file parsers) are tried on
// the leading bytes, line and JSON formats on the first non-blank record.
// When no parser recognizes that record, the next ones are tried, up to
// sniffRecords: a log whose first line was cut (rotated mid-write, a
// writer that crashed) or damaged on purpose is read, its first line
// rejected with its reason like any other malformed line, rather than
// the whole file left out as of unknown format.
func Sniff(br *bufio.Reader, parsers []parse.Parser) (parse.Parser, error) {
	head, err := br.Peek(sniffWindow)
	// a gzip stream cut short still gives what it holds: the reading
	// says where it ends
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, fmt.Errorf("%w: input is empty", ErrUnknownFormat)
	}
	lines, objs := headRecords(head, parse.Lines), headRecords(head, parse.JSON)
	for i := range max(len(lines), len(objs), 1) {
		for _, p := range parsers {
			var rec []byte
			switch p.Framing() {
			case parse.Whole:
				if i == 0 {
					rec = head
				}
			case parse.JSON:
				switch {
				case i < len(objs):
					rec = objs[i]
				case i == 0 && bytes.HasPrefix(bytes.TrimSpace(head), []byte("{")):
					// one object larger than the window (a CloudTrail
					// Records file): its start is all there is to go on
					rec = head
				}
			default:
				if i < len(lines) {
					rec = lines[i]
				}
			}
			if rec != nil && p.Sniff(rec) {
				return p, nil
			}
		}
	}
	var first []byte
	if len(lines) > 0 {
		first = lines[0]
	}
	return nil, fmt.Errorf("%w: no parser recognizes %q; name one with --format", ErrUnknownFormat, preview(first))
}

// headRecords returns the records among the first sniffRecords of head
// read with framing f (non-blank lines, or JSON objects: of JSON Lines,
// or the elements of pretty/array JSON) that read; those that do not are
// skipped, as an ingest rejects them and goes on.
func headRecords(head []byte, f parse.Framing) [][]byte {
	var out [][]byte
	rr := NewRecordReader(bytes.NewReader(head), f, 0, 1)
	for range sniffRecords {
		rec, err := rr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			out = append(out, rec.Data)
		}
	}
	return out
}

func preview(b []byte) string {
	s := strings.ToValidUTF8(string(b), "?")
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// byteOrderMark reads past a UTF-8 byte order mark at the start of an
// input read from its start (offset 0), as Windows tools write one, and
// returns where reading starts: its first record then reads as it would
// without one (a session record rejected for it loses its bindings). A
// UTF-16 input is refused with what to do: cordon reads UTF-8, and UTF-16
// read as bytes would be a reject per line.
func byteOrderMark(r *bufio.Reader, offset int64) (int64, error) {
	if offset != 0 {
		return offset, nil
	}
	head, _ := r.Peek(3)
	switch {
	case bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}):
		n, err := r.Discard(3)
		return int64(n), err
	case bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0xFE, 0xFF}):
		return 0, fmt.Errorf("%w: the input is UTF-16 (its byte order mark says so) and cordon reads UTF-8: convert it first, e.g. iconv -f UTF-16 -t UTF-8 FILE > FILE.utf8", ErrUnknownFormat)
	}
	return 0, nil
}
