package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/cordon-ir/cordon/ingest/parse"
)

// errTooLong marks a record cut at parse.MaxRecord.
var errTooLong = fmt.Errorf("record longer than %d bytes", parse.MaxRecord)

// RecordReader splits a stream into records for a framing. Next returns the
// next record, or io.EOF. A record it cannot frame comes back with a non-nil
// error and its bytes (truncated), so the caller can reject it and go on.
type RecordReader struct {
	r      *bufio.Reader
	off    int64 // offset of the next unread byte
	line   int   // line number of the next unread byte
	mode   jsonMode
	framed parse.Framing
	done   bool
}

type jsonMode int

const (
	jsonUnknown jsonMode = iota
	jsonLines            // one value per line; a bad line is one reject
	jsonStream           // pretty-printed values or an array of them
)

// NewRecordReader reads records from r, whose first byte is at offset off
// (line numbers then count from line, 1 for a file read from its start).
func NewRecordReader(r io.Reader, framing parse.Framing, off int64, line int) *RecordReader {
	return &RecordReader{r: bufio.NewReaderSize(r, 256<<10), off: off, line: line, framed: framing}
}

// Offset is the byte offset just past the last record returned: where a
// resumed read starts.
func (rr *RecordReader) Offset() int64 { return rr.off }

// Line is the line number where a resumed read starts.
func (rr *RecordReader) Line() int { return rr.line }

// Streaming reports whether the input is pretty-printed or array JSON, which
// can only be resumed from its start.
func (rr *RecordReader) Streaming() bool { return rr.mode == jsonStream }

// Next returns the next non-empty record.
func (rr *RecordReader) Next() (parse.Record, error) {
	if rr.done {
		return parse.Record{}, io.EOF
	}
	switch rr.framed {
	case parse.Whole:
		rr.done = true
		data, err := io.ReadAll(io.LimitReader(rr.r, 1<<34))
		if err != nil {
			return parse.Record{}, err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			return parse.Record{}, io.EOF
		}
		rec := parse.Record{Data: data, Line: rr.line, Offset: rr.off}
		rr.off += int64(len(data))
		return rec, nil
	case parse.JSON:
		if rr.mode == jsonUnknown {
			if err := rr.detectJSON(); err != nil {
				return parse.Record{}, err
			}
		}
		if rr.mode == jsonStream {
			return rr.nextValue()
		}
	}
	return rr.nextLine()
}

// nextLine returns the next non-blank line. A final line with no newline is
// returned too: the caller decides whether a growing file's partial line is
// consumed.
func (rr *RecordReader) nextLine() (parse.Record, error) {
	for {
		startOff, startLine := rr.off, rr.line
		data, n, err := rr.readLine()
		if n == 0 && err != nil {
			return parse.Record{}, err
		}
		rr.off += int64(n)
		rr.line++
		if errors.Is(err, errTooLong) {
			return parse.Record{Data: data, Line: startLine, Offset: startOff}, err
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		return parse.Record{Data: data, Line: startLine, Offset: startOff}, nil
	}
}

// readLine reads through the next newline; it returns the line without its
// terminator (and without a CR before it), and the number of bytes consumed.
func (rr *RecordReader) readLine() ([]byte, int, error) {
	var buf []byte
	n := 0
	tooLong := false
	for {
		chunk, err := rr.r.ReadSlice('\n')
		n += len(chunk)
		if !tooLong {
			if len(buf)+len(chunk) > parse.MaxRecord {
				tooLong = true
				buf = append(buf, chunk[:parse.MaxRecord-len(buf)]...)
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && n == 0 {
			return nil, 0, err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if tooLong {
			return buf, n, errTooLong
		}
		return buf, n, nil
	}
}

// detectJSON decides between JSON Lines and pretty/array JSON from the first
// non-blank line: a line that is a whole JSON value means JSON Lines.
func (rr *RecordReader) detectJSON() error {
	for i := 1; ; i++ {
		peek, err := rr.r.Peek(i * 4096)
		nl := bytes.IndexByte(peek, '\n')
		for nl >= 0 && len(bytes.TrimSpace(peek[:nl])) == 0 {
			next := bytes.IndexByte(peek[nl+1:], '\n')
			if next < 0 {
				nl = -1
				break
			}
			nl = nl + 1 + next
		}
		if nl >= 0 || err != nil || len(peek) >= parse.MaxRecord {
			line := peek
			if nl >= 0 {
				line = peek[:nl]
			}
			line = bytes.TrimSpace(lastLine(line))
			if len(line) > 0 && line[0] != '[' && json.Valid(line) {
				rr.mode = jsonLines
			} else if len(line) > 1 && line[0] == '{' && nl >= 0 && linesFollow(rr.r, nl+1) {
				rr.mode = jsonLines // its first line cut or damaged: one reject
			} else if len(line) == 0 && err != nil {
				rr.mode = jsonLines
			} else if len(line) > 0 && line[0] != '{' && line[0] != '[' {
				rr.mode = jsonLines // not JSON at all: reject line by line
			} else {
				rr.mode = jsonStream
			}
			return nil
		}
	}
}

// linesFollow says most of the complete lines after the first (which
// begins at from in r's buffer), up to eight, are each one JSON object:
// JSON Lines whose first line was cut (a log rotated mid-write, a writer
// that crashed) or damaged, not a pretty-printed value, whose lines are
// hardly ever whole objects. Read as a stream, the first line's open
// string or brace swallowed the rest of the file into one reject.
func linesFollow(r *bufio.Reader, from int) bool {
	peek, _ := r.Peek(64 << 10)
	if from > len(peek) {
		return false
	}
	rest, objects, lines := peek[from:], 0, 0
	for lines < 8 {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			break // a line not whole in the window is not judged
		}
		line := bytes.TrimSpace(rest[:nl])
		rest = rest[nl+1:]
		if len(line) == 0 {
			continue
		}
		lines++
		if line[0] == '{' && json.Valid(line) {
			objects++
		}
	}
	return objects > 0 && 2*objects > lines
}

func lastLine(b []byte) []byte {
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

// nextValue scans the next top-level JSON object. Outside objects, the
// brackets and commas of an enclosing array are separators, so an array of
// records yields one record per element. Anything else outside an object is
// junk up to the end of its line, returned as a record with an error.
func (rr *RecordReader) nextValue() (parse.Record, error) {
	var (
		buf      []byte
		depth    int
		inString bool
		escape   bool
		junk     bool
		startOff int64
		startLn  int
		tooLong  bool
	)
	started := func() bool { return depth > 0 || junk }
	for {
		c, err := rr.r.ReadByte()
		if err != nil {
			if started() {
				rec := parse.Record{Data: buf, Line: startLn, Offset: startOff}
				if junk {
					return rec, fmt.Errorf("not a JSON object")
				}
				return rec, fmt.Errorf("truncated JSON object at end of input")
			}
			return parse.Record{}, err
		}
		rr.off++
		if !started() {
			switch c {
			case '\n':
				rr.line++
				continue
			case ' ', '\t', '\r', ',', '[', ']':
				continue
			}
			startOff, startLn = rr.off-1, rr.line
			if c != '{' {
				junk = true
			}
		}
		if c == '\n' {
			rr.line++
			if junk {
				return parse.Record{Data: buf, Line: startLn, Offset: startOff}, fmt.Errorf("not a JSON object")
			}
		}
		if len(buf) < parse.MaxRecord {
			buf = append(buf, c)
		} else {
			tooLong = true
		}
		if junk {
			continue
		}
		if inString {
			switch {
			case escape:
				escape = false
			case c == '\\':
				escape = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		if depth == 0 {
			rec := parse.Record{Data: buf, Line: startLn, Offset: startOff}
			if tooLong {
				return rec, errTooLong
			}
			if !json.Valid(buf) {
				return rec, fmt.Errorf("invalid JSON object")
			}
			return rec, nil
		}
	}
}
