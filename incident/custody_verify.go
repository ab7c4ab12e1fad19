package incident

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// EvidenceStatus is what a file is now, against what the journal recorded
// when it was received.
type EvidenceStatus string

// The outcomes of VerifyEvidence.
const (
	EvidenceMatch   EvidenceStatus = "match"   // the same bytes
	EvidenceGrew    EvidenceStatus = "grew"    // the same bytes, and more after them (a log still written)
	EvidenceChanged EvidenceStatus = "changed" // bytes received differ, or are no longer there
	EvidenceGone    EvidenceStatus = "gone"    // nothing at the path
	EvidenceUnknown EvidenceStatus = "unknown" // stdin, or unreadable now: nothing to compare
	// EvidenceReplaced is an earlier receipt of a path whose bytes are no
	// longer there, while a later receipt (ingest saw the file replaced,
	// rotated or truncated) stands for what is: the events read from the
	// earlier bytes stay in the index, and those bytes must be found
	// elsewhere (the rotated file) to be checked.
	EvidenceReplaced EvidenceStatus = "replaced"
)

// ErrEvidenceChanged: a file no longer holds the bytes it held when it was
// received (the CLI exits 7 on it, as on a journal that does not verify).
var ErrEvidenceChanged = errors.New("evidence changed since it was received")

// EvidenceCheck is one received file compared with its latest receipt, or
// an earlier receipt of it whose bytes were replaced.
type EvidenceCheck struct {
	Receipt Receipt        `json:"receipt"`
	Seq     int64          `json:"seq"` // the journal entry of that receipt
	Status  EvidenceStatus `json:"status"`
	Size    int64          `json:"size"` // now; -1 when gone
	Detail  string         `json:"detail"`
}

// VerifyEvidence hashes every received file again where it was received
// and compares it with the journal's latest evidence_received entry for
// it; earlier entries whose bytes are no longer there are listed as
// replaced. It needs only the journal, so it runs while an ingest holds the
// index. The error is ErrEvidenceChanged when any file changed. A
// receipt is only as good as the journal that holds it: a journal that
// does not verify is refused (journal.ErrTampered), never compared with.
func (w *Workspace) VerifyEvidence() ([]EvidenceCheck, error) {
	v, err := w.journal.Verify()
	if err != nil {
		return nil, err
	}
	if err := v.Err(); err != nil {
		return nil, fmt.Errorf("the receipts cannot be trusted: %w", err)
	}
	rs, es, err := w.Receipts()
	if err != nil {
		return nil, err
	}
	byPath := map[string][]int{}
	var order []string
	for i, r := range rs {
		key := r.Resolved
		if r.Stdin {
			key = fmt.Sprintf("stdin #%d", es[i].Seq)
		}
		if _, ok := byPath[key]; !ok {
			order = append(order, key)
		}
		byPath[key] = append(byPath[key], i)
	}
	var out []EvidenceCheck
	changed := 0
	for _, key := range order {
		list := byPath[key]
		latest := list[len(list)-1]
		c := checkReceipt(rs[latest])
		c.Seq = es[latest].Seq
		if c.Status == EvidenceChanged {
			changed++
		}
		out = append(out, c)
		// An earlier receipt whose bytes are still the file's first ones
		// is one the latest grew from; any other was replaced.
		for _, i := range list[:len(list)-1] {
			e := checkReceipt(rs[i])
			if e.Status == EvidenceMatch || e.Status == EvidenceGrew || e.Status == EvidenceGone || e.Status == EvidenceUnknown {
				continue
			}
			// Replaced only when ingest saw it go: another file at the
			// path, or the file cut shorter than this receipt (a
			// copytruncate rotation). Bytes edited in a file that only
			// grew since were changed under the index's feet.
			how := "cut and written again (a copytruncate rotation, or a rewrite)"
			switch {
			case rs[i].Inode != rs[latest].Inode:
				how = "replaced by another file (a rotation, or a swap)"
			case rs[latest].Read >= rs[i].Read && rs[latest].ResumedAt > 0:
				e.Seq = es[i].Seq
				e.Detail = fmt.Sprintf("the %d bytes received at journal #%d (sha256 %s) were edited in place: the file kept its inode and only grew, yet its first bytes no longer hash to that receipt; the events read from them stay in the index", rs[i].Read, es[i].Seq, rs[i].SHA256)
				changed++
				out = append(out, e)
				continue
			}
			e.Seq, e.Status = es[i].Seq, EvidenceReplaced
			e.Detail = fmt.Sprintf("the %d bytes received at journal #%d (sha256 %s) are no longer at the path: it was %s before journal #%d; the events read from them stay in the index", rs[i].Read, es[i].Seq, rs[i].SHA256, how, es[latest].Seq)
			out = append(out, e)
		}
	}
	if changed > 0 {
		return out, fmt.Errorf("%w: %d of %d files", ErrEvidenceChanged, changed, len(order))
	}
	return out, nil
}

// checkReceipt compares one file with its receipt.
func checkReceipt(r Receipt) EvidenceCheck {
	c := EvidenceCheck{Receipt: r, Size: -1}
	if r.Stdin {
		c.Status, c.Detail = EvidenceUnknown, "read from stdin: there is no file to hash again"
		return c
	}
	f, err := os.Open(r.Resolved)
	if errors.Is(err, os.ErrNotExist) {
		c.Status, c.Detail = EvidenceGone, "no file at "+r.Resolved+" (moved, rotated away or deleted)"
		return c
	}
	if err != nil {
		c.Status, c.Detail = EvidenceUnknown, err.Error()
		return c
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		c.Status, c.Detail = EvidenceUnknown, "not a regular file now"
		return c
	}
	c.Size = info.Size()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, r.Read))
	if err != nil {
		c.Status, c.Detail = EvidenceUnknown, err.Error()
		return c
	}
	switch {
	case n < r.Read:
		c.Status, c.Detail = EvidenceChanged, fmt.Sprintf("%d bytes now, %d when received: the file was cut or replaced", c.Size, r.Read)
	case hex.EncodeToString(h.Sum(nil)) != r.SHA256:
		c.Status, c.Detail = EvidenceChanged, fmt.Sprintf("the first %d bytes no longer hash to the digest received (sha256 %s)", r.Read, r.SHA256)
	case c.Size > r.Read:
		c.Status, c.Detail = EvidenceGrew, fmt.Sprintf("the %d bytes received are unchanged; %d bytes were added after them", r.Read, c.Size-r.Read)
	default:
		c.Status, c.Detail = EvidenceMatch, fmt.Sprintf("sha256 %s over %d bytes", r.SHA256, r.Read)
	}
	return c
}
