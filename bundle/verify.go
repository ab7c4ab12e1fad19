package bundle

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cordon-ir/cordon/journal"
)

// ErrBundle: the bundle does not verify.
var ErrBundle = errors.New("bundle does not verify")

// Limits on what Verify keeps in memory from a bundle it has not yet
// checked: the manifest, its signature and the journal. Everything else is
// hashed as it streams by.
const (
	maxManifest = 64 << 20
	maxJournal  = 1 << 30
)

// Verification is what Verify found.
type Verification struct {
	Manifest Manifest `json:"manifest"`
	// Signed: the manifest carries a signature that verified; SignedBy is
	// who made it (principals from the allowed signers, else the key's
	// fingerprint).
	Signed   bool   `json:"signed"`
	SignedBy string `json:"signed_by,omitempty"`
	// NotAsReceived counts the evidence files the bundle carries that no
	// longer hashed to their receipt when it was written.
	NotAsReceived int `json:"not_as_received,omitempty"`
	// Journal is the verification of the journal inside.
	Journal journal.Verification `json:"journal"`
	// Problems are every reason the bundle does not verify; none: it does.
	Problems []string `json:"problems,omitempty"`
}

// OK reports whether the bundle verified.
func (v Verification) OK() bool { return len(v.Problems) == 0 }

// Verify checks a bundle: every member's digest against the manifest, no
// member missing or added, the journal's chain and that its head is the
// one the manifest records, and the manifest's signature (required, and
// by one of them, when allowed is not nil). The error is ErrBundle, with
// the first problem, when it does not verify.
func Verify(path string, allowed []journal.AllowedSigner) (Verification, error) {
	var v Verification
	f, err := os.Open(path)
	if err != nil {
		return v, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return v, fmt.Errorf("%w: not a gzip file: %v", ErrBundle, err)
	}
	tr := tar.NewReader(gz)
	sums := map[string]string{}
	var manifest, sig []byte
	tmp, err := os.MkdirTemp("", "cordon-bundle-*")
	if err != nil {
		return v, err
	}
	defer os.RemoveAll(tmp)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return v, fmt.Errorf("%w: %v", ErrBundle, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			v.Problems = append(v.Problems, fmt.Sprintf("%s is not a regular file", hdr.Name))
			continue
		}
		if _, dup := sums[hdr.Name]; dup || hdr.Name == manifestName && manifest != nil || hdr.Name == manifestName+signatureExt && sig != nil {
			v.Problems = append(v.Problems, fmt.Sprintf("%s appears twice", hdr.Name))
			continue
		}
		h := sha256.New()
		var keep io.Writer = io.Discard
		var buf *limited
		switch hdr.Name {
		case manifestName, manifestName + signatureExt:
			buf = &limited{max: maxManifest}
			keep = buf
		case journalDir + "journal.jsonl", journalDir + "journal.head":
			jf, err := os.Create(filepath.Join(tmp, filepath.Base(hdr.Name)))
			if err != nil {
				return v, err
			}
			defer jf.Close()
			keep = &limited{w: jf, max: maxJournal}
		}
		if _, err := io.Copy(io.MultiWriter(h, keep), tr); err != nil {
			return v, fmt.Errorf("%w: %s: %v", ErrBundle, hdr.Name, err)
		}
		switch hdr.Name {
		case manifestName:
			manifest = buf.b
		case manifestName + signatureExt:
			sig = buf.b
		default:
			sums[hdr.Name] = hex.EncodeToString(h.Sum(nil))
		}
	}
	if manifest == nil {
		return v, fmt.Errorf("%w: no %s", ErrBundle, manifestName)
	}
	if err := json.Unmarshal(manifest, &v.Manifest); err != nil || v.Manifest.Version != Version {
		return v, fmt.Errorf("%w: %s is not a %s manifest", ErrBundle, manifestName, Version)
	}
	v.checkFiles(sums)
	v.checkJournal(tmp)
	v.checkSignature(manifest, sig, allowed)
	if !v.OK() {
		return v, fmt.Errorf("%w: %s", ErrBundle, v.Problems[0])
	}
	return v, nil
}

// checkFiles compares the members with the manifest.
func (v *Verification) checkFiles(sums map[string]string) {
	listed := map[string]bool{}
	for _, f := range v.Manifest.Files {
		if f.AsReceived != nil && !*f.AsReceived {
			v.NotAsReceived++
		}
		listed[f.Name] = true
		got, ok := sums[f.Name]
		switch {
		case !ok:
			v.Problems = append(v.Problems, fmt.Sprintf("%s is in the manifest but not in the bundle", f.Name))
		case got != f.SHA256:
			v.Problems = append(v.Problems, fmt.Sprintf("%s was changed: its sha256 is %s, the manifest says %s", f.Name, got, f.SHA256))
		}
	}
	for name := range sums {
		if !listed[name] {
			v.Problems = append(v.Problems, fmt.Sprintf("%s is in the bundle but not in the manifest", name))
		}
	}
}

// checkJournal verifies the journal's chain and that it ends at the head
// the manifest records.
func (v *Verification) checkJournal(dir string) {
	j, err := journal.Open(dir)
	if err != nil {
		v.Problems = append(v.Problems, "journal: "+err.Error())
		return
	}
	jv, err := j.Verify()
	if err != nil {
		v.Problems = append(v.Problems, "journal: "+err.Error())
		return
	}
	v.Journal = jv
	want := v.Manifest.Journal
	switch {
	case !jv.OK():
		v.Problems = append(v.Problems, "the journal does not verify: "+jv.Problem.String())
	case jv.Seq != want.Seq || jv.Hash != want.Hash:
		v.Problems = append(v.Problems, fmt.Sprintf("the journal ends at entry %d (%.12s), the manifest records entry %d (%.12s)", jv.Seq, jv.Hash, want.Seq, want.Hash))
	}
}

// checkSignature verifies the manifest's signature, if any; with allowed
// signers one is required.
func (v *Verification) checkSignature(manifest, sig []byte, allowed []journal.AllowedSigner) {
	if sig == nil {
		if allowed != nil {
			v.Problems = append(v.Problems, "the manifest is not signed")
		}
		return
	}
	who, err := journal.VerifySignature(manifest, sig, journal.NamespaceBundle, allowed)
	if err != nil {
		v.Problems = append(v.Problems, "the manifest's "+err.Error())
		return
	}
	v.Signed, v.SignedBy = true, who
}

// limited keeps (or passes on) at most max bytes, failing beyond them.
type limited struct {
	w   io.Writer
	b   []byte
	n   int64
	max int64
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n += int64(len(p)); l.n > l.max {
		return 0, fmt.Errorf("more than %d bytes", l.max)
	}
	if l.w != nil {
		return l.w.Write(p)
	}
	l.b = append(l.b, p...)
	return len(p), nil
}
