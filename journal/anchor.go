package journal

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// EntryCheckpoint is a signed statement of the chain's head: whoever holds
// the key says the journal had this entry at this seq.
const EntryCheckpoint EntryType = "checkpoint"

// Checkpoint is the payload of a checkpoint entry, and the body of an
// anchor record: the head it attests and, when signed, the signature.
type Checkpoint struct {
	Journal     string `json:"journal"` // the hash of entry 1: which journal
	Seq         int64  `json:"seq"`
	Hash        string `json:"hash"`
	Key         string `json:"key,omitempty"` // the signer's public key
	Fingerprint string `json:"fingerprint,omitempty"`
	Signature   string `json:"signature,omitempty"` // armored SSH signature
}

// statement is the text a checkpoint or an anchor signs.
func (c Checkpoint) statement() []byte {
	return fmt.Appendf(nil, "cordon journal head\njournal %s\nseq %d\nhash %s\n", c.Journal, c.Seq, c.Hash)
}

func (c *Checkpoint) sign(s *Signer) error {
	sig, err := s.Sign(c.statement(), NamespaceJournal)
	if err != nil {
		return err
	}
	c.Key, c.Fingerprint, c.Signature = s.Public(), s.Fingerprint(), string(sig)
	return nil
}

// head verifies the journal and returns the checkpoint of its head,
// unsigned: nothing is signed or anchored over a journal that does not
// verify.
func (j *Journal) head() (Checkpoint, error) {
	v, err := j.Verify()
	if err != nil {
		return Checkpoint{}, err
	}
	if err := v.Err(); err != nil {
		return Checkpoint{}, err
	}
	if v.Seq == 0 {
		return Checkpoint{}, errors.New("the journal is empty: there is no head to sign or anchor")
	}
	return Checkpoint{Journal: v.First, Seq: v.Seq, Hash: v.Hash}, nil
}

// Sign appends a checkpoint entry signing the journal's current head.
func (j *Journal) Sign(ctx context.Context, actor Actor, s *Signer) (Entry, error) {
	c, err := j.head()
	if err != nil {
		return Entry{}, err
	}
	if err := c.sign(s); err != nil {
		return Entry{}, err
	}
	p, _ := json.Marshal(c)
	return j.Append(ctx, Entry{Actor: actor, Type: EntryCheckpoint, Payload: p,
		Text: fmt.Sprintf("entry %d (%.12s) signed by %s", c.Seq, c.Hash, c.Fingerprint)})
}

// SignEvery makes the journal sign a checkpoint of its head after every n
// entries it appends, and at Seal: a console or a server that holds a key
// outside the workspace attests the chain as it grows.
func (j *Journal) SignEvery(s *Signer, n int) {
	j.mu.Lock()
	j.signer, j.signEvery = s, int64(max(n, 1))
	j.mu.Unlock()
}

// Seal signs a checkpoint of the head unless the last entry is one (a
// console closing, a server stopping). Without a signer it does nothing.
func (j *Journal) Seal(ctx context.Context, actor Actor) error {
	j.mu.Lock()
	s := j.signer
	j.mu.Unlock()
	if s == nil {
		return nil
	}
	entries, err := j.Entries()
	if err != nil || len(entries) == 0 || entries[len(entries)-1].Type == EntryCheckpoint {
		return err
	}
	_, err = j.Sign(ctx, actor, s)
	return err
}

// checkpointAfter signs the entry just written when SignEvery asks for it,
// under the append's lock, as the entry after it.
func (j *Journal) checkpointAfter(f *os.File, t *tail, written Entry) error {
	if j.signer == nil || written.Type == EntryCheckpoint || written.Seq%j.signEvery != 0 {
		return nil
	}
	first, err := firstHash(f)
	if err != nil {
		return err
	}
	c := Checkpoint{Journal: first, Seq: written.Seq, Hash: written.Hash}
	if err := c.sign(j.signer); err != nil {
		return err
	}
	p, _ := json.Marshal(c)
	_, err = j.write(f, t, Entry{Actor: written.Actor, Type: EntryCheckpoint, Payload: p,
		Text: fmt.Sprintf("entry %d (%.12s) signed by %s", c.Seq, c.Hash, c.Fingerprint)}, time.Time{})
	return err
}

// firstHash is the hash of the journal's first entry.
func firstHash(f *os.File) (string, error) {
	r := bufio.NewReader(io.NewSectionReader(f, 0, 1<<30))
	line, err := r.ReadBytes('\n')
	if err != nil {
		return "", fmt.Errorf("read journal: %w", err)
	}
	e, err := decodeEntry(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil {
		return "", fmt.Errorf("%w: entry 1: %v", ErrTampered, err)
	}
	return e.Hash, nil
}

// Anchor is one line of an anchor file: a journal's head, recorded outside
// the workspace, so that a journal cut short, emptied or rewritten and
// re-hashed no longer matches it.
type Anchor struct {
	Checkpoint
	Incident string    `json:"incident"` // the workspace, absolute
	Time     time.Time `json:"time"`
	By       Actor     `json:"by"`
}

// AnchorTo appends the journal's head to the file at path (created 0600),
// signed when s is not nil. A path inside the workspace is refused: an
// anchor there is rewritten with the journal.
func (j *Journal) AnchorTo(path string, actor Actor, s *Signer) (Anchor, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Anchor{}, err
	}
	if within(resolveDir(abs), j.dir) {
		return Anchor{}, fmt.Errorf("%s is inside the workspace %s: an anchor must be kept where whoever can write the journal cannot (another host, a write-once store, a ticket)", path, j.dir)
	}
	c, err := j.head()
	if err != nil {
		return Anchor{}, err
	}
	if s != nil {
		if err := c.sign(s); err != nil {
			return Anchor{}, err
		}
	}
	dir, _ := filepath.Abs(j.dir)
	a := Anchor{Checkpoint: c, Incident: dir, Time: j.Now().UTC(), By: actor}
	b, _ := json.Marshal(a)
	f, err := os.OpenFile(abs, os.O_CREATE|os.O_WRONLY|os.O_APPEND, FileMode)
	if err != nil {
		return Anchor{}, fmt.Errorf("anchor: %w", err)
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return Anchor{}, fmt.Errorf("anchor: %w", err)
	}
	return a, nil
}

// resolveDir resolves the links of path's directory (path may not exist).
func resolveDir(path string) string {
	d, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return path
	}
	return filepath.Join(d, filepath.Base(path))
}

// ReadAnchors reads an anchor file.
func ReadAnchors(path string) ([]Anchor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("anchor: %w", err)
	}
	defer f.Close()
	var out []Anchor
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var a Anchor
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil || a.Seq < 1 || a.Incident == "" {
			return nil, fmt.Errorf("anchor %s:%d: not an anchor record", path, n)
		}
		out = append(out, a)
	}
	return out, sc.Err()
}
