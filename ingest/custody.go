package ingest

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"io"
	"path/filepath"
	"time"
)

// Received is what one run read of an input, for the chain of custody: a
// digest of the bytes read from the file's start (as stored, and for gzip
// also decompressed), so that the file can be hashed again later and found
// unchanged, grown, changed or gone.
type Received struct {
	Path     string `json:"path"`               // as given
	Resolved string `json:"resolved,omitempty"` // absolute, links resolved
	Stdin    bool   `json:"stdin,omitempty"`
	// Size and ModTime are the file's when the read ended.
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime,omitzero"`
	Inode   uint64    `json:"inode,omitempty"`
	// Read is how many bytes from the start of the file (as stored) SHA256
	// covers; ToEnd says they were the whole file when the read ended.
	Read   int64  `json:"read"`
	SHA256 string `json:"sha256"`
	ToEnd  bool   `json:"to_end"`
	// Gzip files also carry the digest of the decompressed bytes read.
	Gzip        bool   `json:"gzip,omitempty"`
	PlainRead   int64  `json:"plain_read,omitempty"`
	PlainSHA256 string `json:"plain_sha256,omitempty"`
}

// digest hashes and counts the bytes read through it; with end set, it
// ends there (Options.Bounded).
type digest struct {
	r   io.Reader
	h   hash.Hash
	n   int64
	end int64 // where reading ends (-1: at the reader's end)
}

func newDigest(r io.Reader) *digest { return &digest{r: r, h: sha256.New(), end: -1} }

func (d *digest) Read(b []byte) (int, error) {
	if d.end >= 0 {
		if d.n >= d.end {
			return 0, io.EOF
		}
		b = b[:min(int64(len(b)), d.end-d.n)]
	}
	n, err := d.r.Read(b)
	d.h.Write(b[:n])
	d.n += int64(n)
	return n, err
}

func (d *digest) reset() { d.h.Reset(); d.n = 0 }

func (d *digest) sum() string { return hex.EncodeToString(d.h.Sum(nil)) }

// received says what s has read so far.
func (s *source) received(path string) *Received {
	r := &Received{Path: path}
	if s.file == nil {
		r.Stdin = true
	}
	if s.raw != nil {
		r.Read, r.SHA256 = s.raw.n, s.raw.sum()
		r.Size = r.Read
	}
	if s.plain != nil {
		r.Gzip, r.PlainRead, r.PlainSHA256 = true, s.plain.n, s.plain.sum()
	}
	if s.file == nil {
		r.ToEnd = true // all a pipe gave: there is no file to compare with
		return r
	}
	if abs, err := filepath.Abs(path); err == nil {
		r.Resolved = abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			r.Resolved = real
		}
	}
	if info, err := s.file.Stat(); err == nil {
		r.Size, r.ModTime, r.Inode = info.Size(), info.ModTime().UTC(), inode(info)
	}
	r.ToEnd = r.Read == r.Size
	return r
}
