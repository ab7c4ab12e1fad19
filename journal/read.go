package journal

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// Torn describes a torn last line: a write cut short by a crash. The next
// Append sets it aside in journal.torn.
type Torn struct {
	Line   int   // 1-based line number
	Offset int64 // where the line starts
	Bytes  int64 // its length, newline included if it has one
}

// String says where the torn line is, in words.
func (t Torn) String() string {
	return fmt.Sprintf("line %d is torn (incomplete write): %d bytes at offset %d", t.Line, t.Bytes, t.Offset)
}

// fileLine is one line as scanLines hands it over.
type fileLine struct {
	n        int    // 1-based line number
	off      int64  // offset of its first byte
	text     []byte // without the newline
	complete bool   // it ends with a newline
}

// scanLines calls fn for each line of the journal from offset from. An
// absent journal has no lines.
func (j *Journal) scanLines(from int64, fn func(fileLine) error) error {
	return j.scanLinesTo(from, -1, fn)
}

// scanLinesTo is scanLines that stops at byte to (-1: the end of the file).
func (j *Journal) scanLinesTo(from, to int64, fn func(fileLine) error) error {
	f, err := os.Open(j.Path())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open journal: %w", err)
	}
	defer f.Close()
	if from > 0 {
		if _, err := f.Seek(from, io.SeekStart); err != nil {
			return fmt.Errorf("read journal: %w", err)
		}
	}
	var src io.Reader = f
	if to >= 0 {
		src = io.LimitReader(f, max(to-from, 0))
	}
	r := bufio.NewReaderSize(src, 64<<10)
	off := from
	for n := 1; ; n++ {
		b, err := r.ReadBytes('\n')
		if len(b) > 0 {
			l := fileLine{n: n, off: off, text: b, complete: b[len(b)-1] == '\n'}
			if l.complete {
				l.text = b[:len(b)-1]
			}
			off += int64(len(b))
			if ferr := fn(l); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read journal: %w", err)
		}
	}
}

// Read returns every complete entry, oldest first, and the torn last line
// if there is one. A line that does not parse anywhere but at the end is
// not a crash: Read fails with ErrTampered and Verify names it.
func (j *Journal) Read() ([]Entry, *Torn, error) {
	var (
		out []Entry
		bad *fileLine
	)
	err := j.scanLines(0, func(l fileLine) error {
		if bad != nil {
			return fmt.Errorf("%w: journal line %d is not an entry; run cordon journal verify", ErrTampered, bad.n)
		}
		if l.complete {
			if e, err := decodeEntry(l.text); err == nil {
				out = append(out, e)
				return nil
			}
		}
		l.text = nil
		bad = &l
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if bad != nil {
		return out, &Torn{Line: bad.n, Offset: bad.off, Bytes: tornSize(j.Path(), bad.off)}, nil
	}
	return out, nil, nil
}

// tornSize is the length of the torn tail that starts at off.
func tornSize(path string, off int64) int64 {
	st, err := os.Stat(path)
	if err != nil || st.Size() < off {
		return 0
	}
	return st.Size() - off
}

// Entries returns every complete entry, oldest first, ignoring a torn last
// line (use Read to learn of it).
func (j *Journal) Entries() ([]Entry, error) {
	es, _, err := j.Read()
	return es, err
}

// ReadFrom returns the complete entries that start at or after offset (0,
// or a next from an earlier call), and the offset to poll from next time.
// It is how a console follows entries other processes append. A line still
// being written is left for the next call; so is an unparsable last line,
// which the next Append will set aside.
func (j *Journal) ReadFrom(offset int64) (entries []Entry, next int64, err error) {
	if st, err := os.Stat(j.Path()); err == nil && st.Size() < offset {
		return nil, offset, fmt.Errorf("%w: the journal is shorter (%d bytes) than offset %d: it was cut or replaced", ErrTampered, st.Size(), offset)
	}
	next = offset
	var bad *fileLine
	err = j.scanLines(offset, func(l fileLine) error {
		if bad != nil {
			return fmt.Errorf("%w: the journal line at offset %d is not an entry; run cordon journal verify", ErrTampered, bad.off)
		}
		if !l.complete {
			return nil
		}
		e, err := decodeEntry(l.text)
		if err != nil {
			bad = &l
			return nil
		}
		entries = append(entries, e)
		next = l.off + int64(len(l.text)) + 1
		return nil
	})
	return entries, next, err
}
