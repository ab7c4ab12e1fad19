package ingest

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// headLen is how much of a file's start identifies it: a rotated or
// truncated log starts with other bytes and is read again from the top.
const headLen = 1024

// Checkpoint is how far one input file has been ingested. It is stored in
// the index, in the same batch as the events it covers, so that a crash can
// never leave the two out of step.
type Checkpoint struct {
	Path      string `json:"path"`
	Format    string `json:"format"`
	Offset    int64  `json:"offset"` // in the decompressed stream
	Line      int    `json:"line"`
	Head      string `json:"head"` // sha256 of the first HeadLen bytes
	HeadLen   int    `json:"head_len"`
	Streaming bool   `json:"streaming,omitempty"` // pretty/array JSON: resumable only when unchanged
	Gzip      bool   `json:"gzip,omitempty"`
	Inode     uint64 `json:"inode,omitempty"` // which file the path named
	// Digest is the running SHA-256 of the file's bytes before Offset, as
	// its state (see prefix.go); plain files only.
	Digest  string    `json:"digest,omitempty"`
	Updated time.Time `json:"updated"`
}

const checkpointPrefix = "checkpoint:"

func (c Checkpoint) key() string { return checkpointPrefix + c.Path }

func (c Checkpoint) encode() []byte {
	b, _ := json.Marshal(c)
	return b
}

// LoadCheckpoint returns the stored checkpoint of an absolute path.
func LoadCheckpoint(st evidence.Store, abs string) (Checkpoint, bool) {
	raw, err := st.State(checkpointPrefix + abs)
	if err != nil || raw == nil {
		return Checkpoint{Path: abs}, false
	}
	var c Checkpoint
	if json.Unmarshal(raw, &c) != nil {
		return Checkpoint{Path: abs}, false
	}
	return c, true
}

func loadCheckpoint(st evidence.Store, abs string) Checkpoint {
	c, _ := LoadCheckpoint(st, abs)
	return c
}

// source is one open input.
type source struct {
	name       string
	file       *os.File
	gz         bool
	r          *bufio.Reader
	checkpoint Checkpoint
	lastOffset int64
	// raw hashes the bytes read as stored, plain those gzip gave: a resume
	// seeks past what its checkpoint's digest covers, or discards through
	// them, so they always cover the input from its start.
	raw, plain *digest
	// pre hashes a plain file up to each checkpoint (nil: gzip, stdin)
	pre *prefix
}

// openSource opens a file (or stdin), undoes gzip, and positions it at its
// checkpoint when the file is the one the checkpoint describes.
func openSource(ctx context.Context, path string, opt Options) (*source, error) {
	s := &source{name: path}
	var rd io.Reader
	if path == "-" {
		if opt.Stdin == nil {
			return nil, fmt.Errorf("%w: no stdin", ErrUnreadable)
		}
		s.name = "stdin"
		s.raw = newDigest(&ctxReader{ctx: ctx, r: opt.Stdin})
		rd = s.raw
	} else {
		f, err := openRegular(path)
		if errors.Is(err, ErrUnreadable) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
		}
		s.file = f
		s.raw = newDigest(f)
		if opt.Bounded {
			info, err := f.Stat()
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
			}
			s.raw.end = info.Size()
		}
		rd = s.raw
		abs, _ := filepath.Abs(path)
		s.checkpoint = loadCheckpoint(opt.Store, abs)
	}
	br := bufio.NewReaderSize(rd, sniffWindow+4096)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("%w: %s: %v", ErrUnreadable, path, err)
		}
		s.gz = true
		s.plain = newDigest(zr)
		br = bufio.NewReaderSize(s.plain, sniffWindow+4096)
	}
	s.r = br
	if s.file != nil && !s.gz {
		s.pre = &prefix{h: sha256.New()}
	}
	if err := s.resume(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *source) Close() {
	if s.file != nil {
		s.file.Close()
	}
}

// resume skips what the checkpoint covers, if the file still starts with the
// bytes it started with then; otherwise it reads from the top.
func (s *source) resume() error {
	ck := s.checkpoint
	if ck.Offset == 0 || s.file == nil {
		return nil
	}
	fromTop := func() error {
		s.checkpoint = Checkpoint{Path: ck.Path}
		return nil
	}
	if head, ok := s.head(ck.HeadLen); !ok || head != ck.Head {
		return fromTop()
	}
	if ck.Streaming {
		if info, err := s.file.Stat(); err != nil || ck.Gzip || info.Size() != ck.Offset {
			return fromTop()
		}
	}
	if ok, err := s.seek(ck); ok || err != nil {
		return err
	}
	n, err := s.r.Discard(int(ck.Offset))
	if int64(n) < ck.Offset || err != nil && !errors.Is(err, io.EOF) {
		return s.reopen()
	}
	s.lastOffset = ck.Offset
	return nil
}

// seek resumes a plain file at its checkpoint without reading what comes
// before it: the checkpoint's digest stands for those bytes. It reports
// false when the checkpoint has no digest or the file is shorter than it
// (then the resume reads from the top, as before).
func (s *source) seek(ck Checkpoint) (bool, error) {
	if ck.Digest == "" || s.gz || s.pre == nil {
		return false, nil
	}
	info, err := s.file.Stat()
	if err != nil || info.Size() < ck.Offset {
		return false, nil
	}
	h, err := unmarshalDigest(ck.Digest)
	if err != nil {
		return false, nil // read through it instead
	}
	ph, _ := unmarshalDigest(ck.Digest)
	if _, err := s.file.Seek(ck.Offset, io.SeekStart); err != nil {
		return false, err
	}
	s.raw.h, s.raw.n = h, ck.Offset
	s.pre.h, s.pre.at = ph, ck.Offset
	s.r.Reset(s.raw)
	s.lastOffset = ck.Offset
	return true, nil
}

// reopen rewinds a file that turned out shorter than its checkpoint.
func (s *source) reopen() error {
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	s.checkpoint = Checkpoint{Path: s.checkpoint.Path}
	s.raw.reset()
	if s.pre != nil {
		s.pre = &prefix{h: sha256.New()}
	}
	s.r.Reset(s.raw)
	if s.gz {
		return errors.New("compressed file shrank since its checkpoint: remove it from sources or re-ingest into a new incident")
	}
	return nil
}

func hashHead(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// head hashes the first n bytes of the file as stored (compressed or not).
func (s *source) head(n int) (string, bool) {
	buf := make([]byte, n)
	if _, err := s.file.ReadAt(buf, 0); err != nil {
		return "", false
	}
	return hashHead(buf), true
}

// advance moves the checkpoint to pos. It reports false when there is no
// checkpoint to keep (stdin; pretty/array JSON before it is fully read).
func (s *source) advance(pos Position, format string, final bool) (Checkpoint, bool) {
	if s.file == nil || (pos.Streaming && !final) {
		return Checkpoint{}, false
	}
	ck := s.checkpoint
	if ck.HeadLen < headLen {
		if info, err := s.file.Stat(); err == nil {
			n := int(min(int64(headLen), info.Size()))
			if h, ok := s.head(n); ok {
				ck.Head, ck.HeadLen = h, n
			}
		}
	}
	// Streaming is sticky: a re-run of an unchanged pretty-printed file reads
	// no record and so cannot tell, but it still cannot resume mid-file.
	ck.Format, ck.Offset, ck.Line, ck.Gzip = format, pos.Offset, pos.Line, s.gz
	ck.Streaming = ck.Streaming || pos.Streaming
	ck.Digest = ""
	if s.pre != nil && !ck.Streaming {
		// a digest that cannot be had only costs the next resume a read
		ck.Digest, _ = s.pre.to(s.file, pos.Offset)
	}
	if info, err := s.file.Stat(); err == nil {
		ck.Inode = inode(info)
	}
	ck.Updated = time.Now().UTC()
	s.checkpoint = ck
	return ck, true
}

// progress aggregates counts and reports them at most twice a second.
type progress struct {
	mu    sync.Mutex
	opt   Options
	start time.Time
	last  time.Time
	p     Progress
}

// add counts a batch that became searchable.
func (pr *progress) add(events int, bytes int64) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.p.Events += int64(events)
	if bytes > 0 {
		pr.p.Bytes += bytes
	}
	now := pr.opt.Now()
	if pr.opt.Progress != nil && now.Sub(pr.last) >= 500*time.Millisecond {
		pr.last = now
		pr.p.Elapsed = now.Sub(pr.start)
		pr.opt.Progress(pr.p)
	}
}

// stored counts the new events of a batch that reached the disk.
func (pr *progress) stored(fresh int) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.p.New += int64(fresh)
}

func (pr *progress) fileDone() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.p.FilesDone++
}

func (pr *progress) finish() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.p.Done = true
	pr.p.Elapsed = pr.opt.Now().Sub(pr.start)
	if pr.opt.Progress != nil {
		pr.opt.Progress(pr.p)
	}
}
