package journal

import (
	"fmt"
	"path/filepath"
	"time"
)

// VerifyOptions are what a verification checks beyond the chain.
type VerifyOptions struct {
	// Anchors are records kept outside the workspace (ReadAnchors); those
	// of this workspace or this journal must all still match it.
	Anchors []Anchor
	// Allowed, when not nil, are the only keys whose signatures count, and
	// at least one checkpoint or anchor must be signed by one of them.
	Allowed []AllowedSigner
}

// Proof is what a verification showed beyond the hash chain.
type Proof struct {
	// Anchored is the latest matching anchor; Anchors how many matched.
	Anchored *Anchor `json:"anchored,omitempty"`
	Anchors  int     `json:"anchors"`
	// Signed counts the checkpoints and anchors whose signatures verified;
	// SignedTo is the last entry one of them covers; SignedBy who signed
	// (principals from allowed signers, else key fingerprints).
	Signed   int      `json:"signed"`
	SignedTo int64    `json:"signed_to,omitempty"`
	SignedBy []string `json:"signed_by,omitempty"`
}

// VerifyWith verifies the chain (Verify), then every checkpoint entry's
// signature and every anchor of this workspace against it. A journal cut
// short, emptied, deleted or rewritten and re-hashed after an anchor was
// taken fails here even though its chain alone is consistent.
func (j *Journal) VerifyWith(o VerifyOptions) (Verification, Proof, error) {
	var p Proof
	v, err := j.Verify()
	if err != nil || v.Problem != nil {
		return v, p, err
	}
	entries, err := j.Entries()
	if err != nil {
		return v, p, err
	}
	hashes := make(map[int64]string, len(entries))
	for _, e := range entries {
		hashes[e.Seq] = e.Hash
	}
	signer := map[string]bool{}
	signed := func(c Checkpoint) error {
		if c.Signature == "" {
			return nil
		}
		who, err := VerifySignature(c.statement(), []byte(c.Signature), NamespaceJournal, o.Allowed)
		if err != nil {
			return err
		}
		p.Signed++
		p.SignedTo = max(p.SignedTo, c.Seq)
		if !signer[who] {
			signer[who] = true
			p.SignedBy = append(p.SignedBy, who)
		}
		return nil
	}
	fail := func(seq int64, format string, a ...any) (Verification, Proof, error) {
		v.Problem = &Problem{Seq: seq, Reason: fmt.Sprintf(format, a...)}
		return v, p, nil
	}
	for _, e := range entries {
		if e.Type != EntryCheckpoint {
			continue
		}
		var c Checkpoint
		if err := decodePayload(e, &c); err != nil {
			return fail(e.Seq, "checkpoint entry %d: %v", e.Seq, err)
		}
		if c.Journal != v.First || c.Seq >= e.Seq || hashes[c.Seq] != c.Hash {
			return fail(e.Seq, "checkpoint entry %d attests entry %d of another chain: entries up to it were rewritten", e.Seq, c.Seq)
		}
		if err := signed(c); err != nil {
			return fail(e.Seq, "checkpoint entry %d: %v", e.Seq, err)
		}
	}
	dir, _ := filepath.Abs(j.dir)
	for _, a := range o.Anchors {
		if a.Incident != dir && (v.First == "" || a.Journal != v.First) {
			continue
		}
		when := a.Time.UTC().Format(time.RFC3339)
		switch {
		case a.Seq > v.Seq:
			return fail(a.Seq, "the journal ends at entry %d but the anchor of %s records entry %d: it was cut short, emptied or deleted", v.Seq, when, a.Seq)
		case a.Journal != v.First:
			return fail(1, "entry 1 is not the one anchored %s: the journal was rewritten from its start", when)
		case hashes[a.Seq] != a.Hash:
			return fail(a.Seq, "entry %d is not the one anchored %s: the journal was rewritten and re-hashed", a.Seq, when)
		}
		if err := signed(a.Checkpoint); err != nil {
			return fail(a.Seq, "the anchor of %s: %v", when, err)
		}
		p.Anchors++
		if p.Anchored == nil || a.Seq >= p.Anchored.Seq {
			p.Anchored = &a
		}
	}
	if len(o.Anchors) > 0 && p.Anchors == 0 {
		return fail(0, "the anchor file records nothing of this workspace or journal")
	}
	if o.Allowed != nil && p.Signed == 0 {
		return fail(0, "no checkpoint or anchor is signed by an allowed signer")
	}
	return v, p, nil
}
