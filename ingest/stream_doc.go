package ingest

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// streamDocument runs a StreamParser over a whole input. Events go to sink as
// the parser finds them; commit is told the bytes read so far after each one,
// as a streaming position (so a batch can be written, but no checkpoint is
// kept before the end). The final position covers the whole input.
func streamDocument(r io.Reader, name string, p parse.StreamParser, at Position, sink parse.Sink, commit func(Position) error) (Position, error) {
	if at.Offset > 0 {
		// A document keeps a checkpoint only once read to its end, and
		// source.resume honours it only while the file is unchanged.
		at.Streaming = true
		return at, nil
	}
	cr := &countReader{r: r}
	in := parse.Input{Name: name, R: cr, Size: -1}
	var ca *countAt
	if ra, size := randomAccess(r); ra != nil {
		ca = &countAt{r: ra}
		in.At, in.Size = ca, size
	}
	pos := func() Position {
		n := cr.n
		if ca != nil && in.Size >= 0 {
			n = max(n, min(ca.n, in.Size))
		}
		return Position{Offset: n, Line: max(at.Line, 1), Streaming: true}
	}
	ds := &docSink{sink: sink, p: p, name: name, commit: func() error {
		if commit == nil {
			return nil
		}
		return commit(pos())
	}}
	if err := safeParseStream(p, in, ds); err != nil {
		if ds.failed != nil && errors.Is(err, ds.failed) {
			return pos(), err
		}
		return pos(), fmt.Errorf("read %s: %w", name, err)
	}
	// The rest is read even when the parser read the file at random, so
	// that the digest of what was received covers the whole document.
	if _, err := io.Copy(io.Discard, cr); err != nil {
		return pos(), fmt.Errorf("read %s: %w", name, err)
	}
	if in.At != nil {
		cr.n = in.Size
	}
	return pos(), nil
}

// safeParseStream turns a parser panic on hostile input into an error that
// ends the file, not the run.
func safeParseStream(p parse.StreamParser, in parse.Input, out parse.Sink) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("parser %s failed: %v", p.Format(), r)
		}
	}()
	return p.ParseStream(in, out)
}

// docSink completes what a StreamParser emits, as Stream does for records.
type docSink struct {
	sink   parse.Sink
	p      parse.StreamParser
	name   string
	commit func() error
	failed error // the sink's own error, passed back unchanged
}

func (d *docSink) Event(ev evidence.Event) error {
	if err := parse.Normalize(&ev); err != nil {
		return d.Reject(parse.Reject{Origin: ev.Origin, Reason: err.Error(), Data: ev.Raw})
	}
	if ev.Origin == "" {
		ev.Origin = d.name
	}
	if strings.HasPrefix(ev.Raw, "{") {
		one := []evidence.Event{ev} // its raw is its record: nothing is hidden from it
		parse.FlagDuplicates([]byte(ev.Raw), one)
		ev = one[0]
	}
	if ev.ID == "" {
		ev.ID = evidence.MakeID(d.p.Format(), 0, 0, []byte(ev.Origin+"\x00"+ev.Raw))
	}
	if ev.Source == "" {
		ev.Source = d.p.Source()
	}
	ev.Format = d.p.Format()
	if err := d.sink.Event(ev); err != nil {
		d.failed = err
		return err
	}
	if err := d.commit(); err != nil {
		d.failed = err
		return err
	}
	return nil
}

func (d *docSink) Reject(r parse.Reject) error {
	if r.Origin == "" {
		r.Origin = d.name + "@" + strconv.FormatInt(r.Offset, 10)
	}
	r.Format = d.p.Format()
	if err := d.sink.Reject(r); err != nil {
		d.failed = err
		return err
	}
	return nil
}

// docReader is an input that is also a plain file: a StreamParser may read
// it at random (a ZIP container's directory is at its end).
type docReader struct {
	io.Reader
	at   io.ReaderAt
	size int64
}

// randomAccess returns random access to r's bytes when r is a plain file or
// an in-memory document read from its start.
func randomAccess(r io.Reader) (io.ReaderAt, int64) {
	switch v := r.(type) {
	case docReader:
		return v.at, v.size
	case *os.File:
		if info, err := v.Stat(); err == nil && info.Mode().IsRegular() {
			if off, err := v.Seek(0, io.SeekCurrent); err == nil && off == 0 {
				return v, info.Size()
			}
		}
	case interface {
		io.ReaderAt
		Size() int64
	}:
		return v, v.Size()
	}
	return nil, -1
}

// input is what Stream reads: the buffered stream, with the file behind it
// for a StreamParser when the file is read as stored (not gzip).
func (s *source) input(p parse.Parser) io.Reader {
	if _, ok := p.(parse.StreamParser); !ok || s.file == nil || s.gz {
		return s.r
	}
	info, err := s.file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return s.r
	}
	return docReader{Reader: s.r, at: s.file, size: info.Size()}
}

// countReader counts the bytes read through it.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// countAt counts the bytes read at random, for progress.
type countAt struct {
	r io.ReaderAt
	n int64
}

func (c *countAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.n += int64(n)
	return n, err
}
