package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/platform"
)

// Append writes e as the next entry and returns it as written: seq, time,
// prev and hash are filled in here, whatever the caller set. The caller
// names the actor (CurrentActor for the CLI, the session's user in the
// console). The line is fsynced before journal.head is moved to it.
//
// If the last line is torn (a crash mid-write), Append first sets it aside
// in journal.torn and records a journal_repaired entry. If the journal's end
// does not match journal.head (entries deleted from the end, the last entry
// replaced), it refuses with ErrTampered rather than write over the traces.
func (j *Journal) Append(ctx context.Context, e Entry) (Entry, error) {
	return j.append(ctx, e, time.Time{})
}

// AppendAt is Append for something that happened at a known time rather
// than now: a drill's inject, due at its scenario time, which the clock
// may have run past by the time the console notices.
func (j *Journal) AppendAt(ctx context.Context, e Entry, at time.Time) (Entry, error) {
	return j.append(ctx, e, at)
}

func (j *Journal) append(ctx context.Context, e Entry, at time.Time) (Entry, error) {
	if e.Type == "" {
		return Entry{}, errors.New("journal entry needs a type")
	}
	if e.Actor.Name == "" || e.Actor.Via == "" {
		return Entry{}, errors.New("journal entry needs an actor with a name and a via")
	}
	if e.Actor.Observer {
		return Entry{}, fmt.Errorf("%w (%s via %s)", ErrReadOnly, e.Actor.Name, e.Actor.Via)
	}
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}
	// The mutex spares goroutines of one process a second lock fd each; the
	// flock serializes processes (and Journal values opened twice).
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := CheckWritable(j.dir, j.shared); err != nil {
		return Entry{}, err
	}
	unlock, err := j.lock()
	if err != nil {
		return Entry{}, err
	}
	defer unlock()
	if err := ctx.Err(); err != nil {
		return Entry{}, err
	}

	f, err := os.OpenFile(j.Path(), os.O_CREATE|os.O_RDWR|os.O_APPEND, FileMode)
	if err != nil {
		return Entry{}, writeErr(j.dir, "open the journal", err)
	}
	defer f.Close()
	t, err := readTail(f)
	if err != nil {
		return Entry{}, err
	}
	if err := j.checkHead(t); err != nil {
		return Entry{}, err
	}
	if t.fragment != nil {
		if t, err = j.repair(f, t, e.Actor); err != nil {
			return Entry{}, err
		}
	}
	written, err := j.write(f, &t, e, at)
	if err != nil {
		return written, err
	}
	return written, j.checkpointAfter(f, &t, written)
}

// lock takes the exclusive journal lock, waiting for other writers: each
// holds it for one append, a few milliseconds.
func (j *Journal) lock() (unlock func(), err error) {
	lf, err := os.OpenFile(filepath.Join(j.dir, lockFile), os.O_CREATE|os.O_RDWR, FileMode)
	if err != nil {
		return nil, writeErr(j.dir, "open the journal lock", err)
	}
	if err = platform.Lock(lf, platform.Exclusive, true); err != nil {
		lf.Close()
		return nil, fmt.Errorf("lock journal: %w", err)
	}
	return func() {
		platform.Unlock(lf)
		lf.Close()
	}, nil
}

// tail is what Append needs of the end of the journal.
type tail struct {
	last     Entry  // Seq 0: no complete entry yet
	end      int64  // offset just after the last complete line
	fragment []byte // a torn last line (no newline, or unparsable), or nil
}

// tailChunk is how much readTail reads at a time, backwards from the end.
const tailChunk = 8 << 10

// readTail reads the last complete entry and any torn fragment after it,
// seeking back from the end rather than reading the whole journal.
func readTail(f *os.File) (tail, error) {
	st, err := f.Stat()
	if err != nil {
		return tail{}, fmt.Errorf("stat journal: %w", err)
	}
	size := st.Size()
	if size == 0 {
		return tail{}, nil
	}
	start, line, err := lineBefore(f, size)
	if err != nil {
		return tail{}, err
	}
	if bytes.HasSuffix(line, []byte("\n")) {
		if e, err := decodeEntry(line[:len(line)-1]); err == nil {
			return tail{last: e, end: size}, nil
		}
	}
	t := tail{end: start, fragment: line}
	if start == 0 {
		return t, nil
	}
	pstart, prev, err := lineBefore(f, start)
	if err != nil {
		return tail{}, err
	}
	if t.last, err = decodeEntry(prev[:len(prev)-1]); err != nil {
		// Only the last line can be torn by a crash; damage further back
		// is for Verify to name, not for Append to cut away.
		return tail{}, fmt.Errorf("%w: the line at offset %d, before the torn last line, is not an entry (%v); run cordon journal verify", ErrTampered, pstart, err)
	}
	return t, nil
}

// lineBefore returns the line that ends at end (with its newline, if any)
// and the offset where it starts.
func lineBefore(f *os.File, end int64) (int64, []byte, error) {
	buf := make([]byte, tailChunk)
	start := int64(0)
	for pos := end - 1; pos > 0; {
		n := min(int64(len(buf)), pos)
		if _, err := f.ReadAt(buf[:n], pos-n); err != nil {
			return 0, nil, fmt.Errorf("read journal: %w", err)
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = pos - n + int64(i) + 1
			break
		}
		pos -= n
	}
	line := make([]byte, end-start)
	if _, err := f.ReadAt(line, start); err != nil {
		return 0, nil, fmt.Errorf("read journal: %w", err)
	}
	return start, line, nil
}

// checkHead compares the end of the journal with journal.head. The head is
// written after the line is fsynced, so a crash leaves it at most one entry
// behind, never ahead and never on a different hash.
func (j *Journal) checkHead(t tail) error {
	h, ok, err := j.readHead()
	if err != nil {
		return err
	}
	refuse := func(why string) error {
		return fmt.Errorf("%w: %s; cordon will not append to it (run cordon journal verify)", ErrTampered, why)
	}
	switch {
	case !ok && t.last.Seq > 1:
		return refuse(headFile + " is missing")
	case ok && h.Seq > t.last.Seq:
		return refuse(fmt.Sprintf("the journal ends at entry %d but %s records entry %d: entries were deleted from the end", t.last.Seq, headFile, h.Seq))
	case ok && h.Seq == t.last.Seq && h.Hash != t.last.Hash:
		return refuse(fmt.Sprintf("entry %d is not the one %s records: the last entry was replaced", h.Seq, headFile))
	}
	return nil
}

// tornRecord is one line of journal.torn.
type tornRecord struct {
	Time     time.Time `json:"time"`
	Offset   int64     `json:"offset"`
	Bytes    int       `json:"bytes"`
	SHA256   string    `json:"sha256"`
	Fragment string    `json:"fragment,omitempty"`
	Base64   []byte    `json:"fragment_base64,omitempty"`
}

// repair sets a torn last line aside in journal.torn, cuts the journal back
// to its last complete line and records that it did. The fragment is kept
// before the cut, so a crash during repair loses nothing.
func (j *Journal) repair(f *os.File, t tail, actor Actor) (tail, error) {
	sum := sha256.Sum256(t.fragment)
	rec := tornRecord{Time: j.now().UTC(), Offset: t.end, Bytes: len(t.fragment), SHA256: hex.EncodeToString(sum[:])}
	if utf8.Valid(t.fragment) {
		rec.Fragment = string(t.fragment)
	} else {
		rec.Base64 = t.fragment
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return t, err
	}
	tf, err := os.OpenFile(filepath.Join(j.dir, tornFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, FileMode)
	if err != nil {
		return t, fmt.Errorf("open %s: %w", tornFile, err)
	}
	_, err = tf.Write(append(b, '\n'))
	if err == nil {
		err = tf.Sync()
	}
	if cerr := tf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return t, fmt.Errorf("write %s: %w", tornFile, err)
	}
	if err := f.Truncate(t.end); err != nil {
		return t, fmt.Errorf("cut torn journal line: %w", err)
	}
	if err := f.Sync(); err != nil {
		return t, fmt.Errorf("sync journal: %w", err)
	}
	payload, _ := json.Marshal(struct {
		Offset  int64  `json:"offset"`
		Bytes   int    `json:"bytes"`
		SHA256  string `json:"sha256"`
		MovedTo string `json:"moved_to"`
	}{t.end, len(t.fragment), rec.SHA256, tornFile})
	t.fragment = nil
	_, err = j.write(f, &t, Entry{
		Type:    EntryRepaired,
		Actor:   actor,
		Text:    fmt.Sprintf("a torn last line (%d bytes at offset %d, an incomplete write) was set aside in %s", rec.Bytes, rec.Offset, tornFile),
		Payload: payload,
	}, time.Time{})
	return t, err
}

// write appends e after t.last, fsyncs, moves the head and advances t.
func (j *Journal) write(f *os.File, t *tail, e Entry, at time.Time) (Entry, error) {
	e.Seq = t.last.Seq + 1
	e.Prev = Genesis
	if e.Seq > 1 {
		e.Prev = t.last.Hash
	}
	if at.IsZero() {
		at = j.now()
	}
	e.Time = at.UTC()
	line, _, err := encodeEntry(e)
	if err != nil {
		return Entry{}, err
	}
	// Return the entry as it reads back, so that what Append returns and
	// what Entries later returns are the same (the encoder may have
	// replaced invalid UTF-8 or compacted the payload).
	written, err := decodeEntry(line)
	if err != nil {
		return Entry{}, fmt.Errorf("encode journal entry: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return Entry{}, fmt.Errorf("write journal: %w", err)
	}
	if err := f.Sync(); err != nil {
		return Entry{}, fmt.Errorf("sync journal: %w", err)
	}
	t.last, t.end = written, t.end+int64(len(line))+1
	if err := j.writeHead(written); err != nil {
		return Entry{}, err
	}
	return written, nil
}
