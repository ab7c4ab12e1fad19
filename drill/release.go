package drill

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// maxEvidenceBytes bounds one evidence file of a drill: drills replay
// sample incidents, not production archives.
const maxEvidenceBytes = 256 << 20

// Replay releases a drill's evidence as scenario time passes: each evidence
// file is copied, record by record, into a staging copy that the workspace
// ingests. A record is released once it, and every record before it in its
// file, has happened, so nothing in the index is from the future.
type Replay struct {
	files []*staged
	first time.Time
	last  time.Time
	// Withheld counts the records a simulated gap kept back (blanked in the
	// staging copy).
	Withheld int
}

// staged is one evidence file and how much of it was released.
type staged struct {
	rel     string    // as the script names it
	out     string    // the staging copy the workspace reads
	data    []byte    // the whole (decompressed) file
	records []record  // in file order
	next    int       // first record not yet released (or withheld)
	from    time.Time // held back until then (injected evidence)
	gaps    []window
	open    bool // released from at least once: its staging copy exists
}

// record is a byte range of a file and when it happened.
type record struct {
	at         time.Time
	start, end int64
}

type window struct{ from, to time.Time }

// NewReplay reads the script's evidence and plans its release into
// stageDir. Gaps and held-back files are taken from the injects, resolved
// against start (zero: the evidence's first event).
func NewReplay(s *Script, stageDir string) (*Replay, error) {
	r := &Replay{}
	held := map[string]Time{}
	for _, in := range s.Inject {
		for _, f := range in.Evidence {
			held[f] = in.At
		}
	}
	for _, f := range s.allEvidence() {
		st, err := plan(s.Path(f), f, stageDir)
		if err != nil {
			return nil, err
		}
		if len(st.records) > 0 && !st.records[0].at.IsZero() { // zero: nothing in it has a time
			if r.first.IsZero() || st.records[0].at.Before(r.first) {
				r.first = st.records[0].at
			}
			if last := st.records[len(st.records)-1].at; last.After(r.last) {
				r.last = last
			}
		}
		r.files = append(r.files, st)
	}
	start := s.Start.Resolve(r.first)
	if start.IsZero() {
		start = r.first
	}
	for _, st := range r.files {
		if at, ok := held[st.rel]; ok {
			st.from = at.Resolve(start)
		}
		for _, in := range s.Inject {
			if g := in.Gap; g != nil && matches(st.rel, g.Files) {
				st.gaps = append(st.gaps, window{g.From.Resolve(start), g.To.Resolve(start)})
			}
		}
	}
	return r, nil
}

// matches reports whether file rel is named by pattern: the same path, a
// path suffix, or a folder prefix ending in "/".
func matches(rel, pattern string) bool {
	rel, pattern = filepath.ToSlash(rel), filepath.ToSlash(pattern)
	return rel == pattern || strings.HasSuffix(rel, "/"+pattern) || strings.HasSuffix(pattern, "/") && strings.HasPrefix(rel, pattern)
}

// First and Last are the times of the evidence's first and last records.
func (r *Replay) First() time.Time { return r.first }
func (r *Replay) Last() time.Time  { return r.last }

// Files are the staging copies to ingest: those released from so far (a
// held-back file has no copy before its inject).
func (r *Replay) Files() []string {
	out := make([]string, 0, len(r.files))
	for _, st := range r.files {
		if st.open {
			out = append(out, st.out)
		}
	}
	return out
}

// Release appends to the staging copies every record that has happened by
// now, and reports how many it released.
func (r *Replay) Release(now time.Time) (int, error) {
	n := 0
	for _, st := range r.files {
		if !st.from.IsZero() && now.Before(st.from) {
			continue
		}
		st.open = true
		var buf bytes.Buffer
		for st.next < len(st.records) && !st.records[st.next].at.After(now) {
			rec := st.records[st.next]
			st.next++
			if st.inGap(rec.at) {
				// Blanked, not dropped: every later record keeps its line
				// and offset, so its event id and origin are the ones a
				// plain ingest of the file gives.
				r.Withheld++
				buf.Write(blank(st.data[rec.start:rec.end]))
				continue
			}
			buf.Write(st.data[rec.start:rec.end])
			n++
		}
		if err := appendFile(st.out, buf.Bytes()); err != nil {
			return n, err
		}
	}
	return n, nil
}

// skipStaged marks as released what an earlier run already wrote to the
// staging copies (a drill resumed): it says how many records that is and
// when the last of them happened. Records a gap blanked count as withheld.
func (r *Replay) skipStaged() (n int, latest time.Time, err error) {
	for _, st := range r.files {
		info, err := os.Stat(st.out)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return n, latest, err
		}
		for st.next < len(st.records) && st.records[st.next].end <= info.Size() {
			rec := st.records[st.next]
			st.next++
			if st.inGap(rec.at) {
				r.Withheld++
			} else {
				n++
			}
			if rec.at.After(latest) {
				latest = rec.at
			}
		}
	}
	return n, latest, nil
}

// Next is the time of the next record to release after now (zero: none).
func (r *Replay) Next(now time.Time) time.Time {
	var next time.Time
	for _, st := range r.files {
		if st.next >= len(st.records) {
			continue
		}
		at := st.records[st.next].at
		if !st.from.IsZero() && st.from.After(at) {
			at = st.from
		}
		if at.After(now) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	return next
}

func (st *staged) inGap(t time.Time) bool {
	for _, g := range st.gaps {
		if !t.Before(g.from) && t.Before(g.to) {
			return true
		}
	}
	return false
}

// blank turns a record into spaces, keeping its line breaks: readers skip
// blank lines.
func blank(b []byte) []byte {
	out := bytes.Repeat([]byte{' '}, len(b))
	for i, c := range b {
		if c == '\n' {
			out[i] = '\n'
		}
	}
	return out
}

func appendFile(path string, b []byte) error {
	// inside the workspace, private as the rest of it
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return fmt.Errorf("stage %s: %w", path, err)
	}
	return f.Close()
}

// plan reads a file and times each of its records with the parser sniffed
// from its content. A record that yields no event (a reject, a skipped
// line) goes with the record before it.
func plan(path, rel, stageDir string) (*staged, error) {
	data, err := readEvidence(path)
	if err != nil {
		return nil, err
	}
	p, err := ingest.Sniff(bufio.NewReader(bytes.NewReader(data)), ingest.Parsers())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	st := &staged{rel: rel, data: data, out: filepath.Join(stageDir, strings.TrimSuffix(filepath.Clean(rel), ".gz"))}
	col := &collector{}
	var prev int64
	var last time.Time
	// A record is released once its last event has happened (and never
	// before the record ahead of it): a line holding several spans must
	// not show the later ones early.
	commit := func(pos ingest.Position) error {
		at := col.latest
		if at.Before(last) {
			at = last
		}
		if pos.Offset > prev {
			st.records = append(st.records, record{at: at, start: prev, end: pos.Offset})
		}
		prev, last, col.latest = pos.Offset, at, time.Time{}
		return nil
	}
	end, err := ingest.Stream(bytes.NewReader(data), rel, p, ingest.Position{}, col, commit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	if end.Offset > prev || int64(len(data)) > prev {
		// A document read whole, or a tail: released once all of it has
		// happened.
		at := col.latest
		if at.Before(last) {
			at = last
		}
		st.records = append(st.records, record{at: at, start: prev, end: int64(len(data))})
	}
	if len(st.records) > 0 && st.records[0].at.IsZero() {
		// Records before the first timed one go with it.
		for i := range st.records {
			if !st.records[i].at.IsZero() {
				for j := 0; j < i; j++ {
					st.records[j].at = st.records[i].at
				}
				break
			}
		}
	}
	return st, nil
}

// collector keeps the latest event time of the current record.
type collector struct{ latest time.Time }

func (c *collector) Event(ev evidence.Event) error {
	if ev.Time.After(c.latest) {
		c.latest = ev.Time
	}
	return nil
}

func (c *collector) Reject(parse.Reject) error { return nil }

// readEvidence reads a file whole, decompressing .gz.
func readEvidence(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		r = gz
	}
	data, err := io.ReadAll(io.LimitReader(r, maxEvidenceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(data) > maxEvidenceBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: a drill replays a sample incident", path, maxEvidenceBytes>>20)
	}
	return data, nil
}
