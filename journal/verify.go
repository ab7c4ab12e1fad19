package journal

import (
	"errors"
	"fmt"
	"os"
)

// Verification is the outcome of Verify: how far the chain held and, if it
// broke, the first place it did.
type Verification struct {
	Entries int    `json:"entries"`         // entries that verified, up to the first problem
	Seq     int64  `json:"seq"`             // seq of the last verified entry
	Hash    string `json:"hash"`            // its hash (the journal's head when OK)
	First   string `json:"first,omitempty"` // the hash of entry 1, which names the journal
	// Problem is the first broken entry, or nil when the journal verifies.
	Problem *Problem `json:"problem,omitempty"`
}

// OK reports whether the whole journal verified.
func (v Verification) OK() bool { return v.Problem == nil }

// Err is nil when the journal verified, else ErrTampered with the reason.
func (v Verification) Err() error {
	if v.Problem == nil {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrTampered, v.Problem)
}

// Problem names the first place the journal does not verify.
type Problem struct {
	Line   int    `json:"line,omitempty"` // 1-based; 0 for a problem with journal.head
	Seq    int64  `json:"seq,omitempty"`  // the entry concerned, when known
	Reason string `json:"reason"`
}

// String is the reason, with the line number when there is one.
func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("line %d: %s", p.Line, p.Reason)
	}
	return p.Reason
}

// Verify checks the whole journal: every line parses and ends in a hash
// that recomputes from its bytes, seq runs 1, 2, 3… without a gap, each prev
// is the previous entry's hash, and journal.head records the last entry (so
// entries cut from the end show). It reports the first problem; the error
// is for failures to read. An absent or empty journal verifies with 0
// entries.
func (j *Journal) Verify() (Verification, error) {
	var v Verification
	head, hasHead, size, herr := j.headAndSize()
	headSeen := ""    // hash of entry head.Seq, once reached
	var bad *fileLine // not an entry: torn if it is the last line
	var badWhy string
	err := j.scanLinesTo(0, size, func(l fileLine) error {
		if bad != nil {
			v.Problem = &Problem{Line: bad.n, Reason: fmt.Sprintf("line %d is not a journal entry (%s)", bad.n, badWhy)}
			return errStop
		}
		if !l.complete {
			bad, badWhy = &l, "no newline"
			return nil
		}
		e, err := decodeEntry(l.text)
		if err != nil {
			bad, badWhy = &l, err.Error()
			return nil
		}
		if v.Problem = checkEntry(l, e, v); v.Problem != nil {
			return errStop
		}
		v.Entries++
		v.Seq, v.Hash = e.Seq, e.Hash
		if e.Seq == 1 {
			v.First = e.Hash
		}
		if hasHead && e.Seq == head.Seq {
			headSeen = e.Hash
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return v, err
	}
	switch {
	case v.Problem != nil:
	case bad != nil:
		v.Problem = &Problem{Line: bad.n, Reason: fmt.Sprintf("line %d is torn (incomplete write)", bad.n)}
	default:
		v.Problem = checkHeadAnchor(v, head, hasHead, herr, headSeen)
	}
	return v, nil
}

// headAndSize reads the head and the journal's size between two appends
// (under the append lock, which an append holds from its entry to its
// head), so that a journal verified while a console appends is verified as
// it was then: its head is the last entry up to that size. Where the lock
// cannot be taken (read-only media, where nobody appends) they are read as
// they are; size is -1 when the journal's size is unknown, 0 when it has
// none yet.
func (j *Journal) headAndSize() (h Head, ok bool, size int64, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if unlock, lerr := j.lock(); lerr == nil {
		defer unlock()
	}
	h, ok, err = j.readHead()
	size = -1
	switch info, serr := os.Stat(j.Path()); {
	case serr == nil:
		size = info.Size()
	case errors.Is(serr, os.ErrNotExist):
		size = 0 // none yet: what an append writes after this is not read
	}
	return h, ok, size, err
}

// errStop ends a scan at the first problem.
var errStop = errors.New("stop")

// checkEntry checks that e, read from line l, is the entry that follows the
// verified chain v: its hash recomputes from its bytes, its seq is next,
// its prev is the last hash.
func checkEntry(l fileLine, e Entry, v Verification) *Problem {
	want, chainPrev := v.Seq+1, v.Hash
	if want == 1 {
		chainPrev = Genesis
	}
	stored, computed, _ := splitHash(l.text)
	switch {
	case stored != computed:
		return &Problem{Line: l.n, Seq: e.Seq, Reason: fmt.Sprintf("entry %d was edited: its hash does not match its content", e.Seq)}
	case e.Seq != want:
		return &Problem{Line: l.n, Seq: want, Reason: fmt.Sprintf("entry %d is missing or reordered: line %d holds entry %d", want, l.n, e.Seq)}
	case e.Prev != chainPrev && want == 1:
		return &Problem{Line: l.n, Seq: want, Reason: "entry 1 does not start the chain: its prev is not the genesis value (entries before it were removed and the rest renumbered?)"}
	case e.Prev != chainPrev:
		return &Problem{Line: l.n, Seq: want, Reason: fmt.Sprintf("entry %d is missing or reordered, or entry %d was rewritten: prev does not match entry %d's hash", want, want-1, want-1)}
	}
	return nil
}

// checkHeadAnchor compares the verified chain with journal.head. The head
// may lag one entry behind after a crash between the fsync and the head
// write; anything else is a problem.
func checkHeadAnchor(v Verification, head Head, hasHead bool, herr error, headSeen string) *Problem {
	switch {
	case herr != nil:
		return &Problem{Reason: headFile + " is damaged: it does not record a seq and a hash"}
	case !hasHead && v.Seq > 1:
		return &Problem{Reason: fmt.Sprintf("%s is missing: entries deleted from the end after entry %d cannot be ruled out", headFile, v.Seq)}
	case !hasHead:
		return nil
	case head.Seq > v.Seq:
		return &Problem{Seq: v.Seq + 1, Reason: fmt.Sprintf("the journal ends at entry %d but %s records entry %d: entries were deleted from the end", v.Seq, headFile, head.Seq)}
	case head.Seq == 0:
		return nil // written for an empty journal; never by Append
	case headSeen != head.Hash:
		return &Problem{Seq: head.Seq, Reason: fmt.Sprintf("entry %d is not the one %s records: it was replaced", head.Seq, headFile)}
	case head.Seq < v.Seq-1:
		return &Problem{Seq: head.Seq + 1, Reason: fmt.Sprintf("%s records entry %d but the journal goes on to entry %d: the anchor is stale", headFile, head.Seq, v.Seq)}
	}
	return nil
}
