package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/redact"
	"github.com/cordon-ir/cordon/report"
)

// Version names the bundle layout in its manifest.
const Version = "cordon-bundle/1"

// Names inside a bundle (under the top folder "case/").
const (
	root         = "case/"
	manifestName = root + "manifest.json"
	signatureExt = ".sig"
	journalDir   = root + "journal/"
	evidenceDir  = root + "evidence/"
)

// Manifest lists every file of a bundle with its digest, and the journal
// head the bundle was made at. Its bytes are what a signature signs.
type Manifest struct {
	Version  string    `json:"version"`
	Incident string    `json:"incident"`
	Created  time.Time `json:"created"`
	By       string    `json:"by"`
	// Cordon and Command say what made the bundle: cordon's version and
	// the command line.
	Cordon  string   `json:"cordon,omitempty"`
	Command []string `json:"command,omitempty"`
	// Journal is the verified head of the journal in the bundle.
	Journal journal.Verification `json:"journal"`
	// WithEvidence: the evidence files are inside (and with them whatever
	// secrets the agent read); Unredacted: the case's own files show them.
	WithEvidence bool   `json:"with_evidence"`
	Unredacted   bool   `json:"unredacted,omitempty"`
	Files        []File `json:"files"`
}

// File is one member of the bundle.
type File struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
	// Source is where an evidence file was read from. Its first bytes,
	// as many as were received, are carried; AsReceived says they hash to
	// the digest the journal recorded on receipt.
	Source     string `json:"source,omitempty"`
	AsReceived *bool  `json:"as_received,omitempty"`
}

// Options are the knobs of Write.
type Options struct {
	// Unredacted leaves the secrets the evidence holds in the report,
	// findings and capability sets (they are replaced by the case's
	// placeholders by default). The journal is carried as stored either
	// way: its hash chain is what the bundle vouches for.
	Unredacted   bool
	WithEvidence bool
	Signer       *journal.Signer // signs the manifest when set
	Actor        journal.Actor
	Now          func() time.Time
	// Cordon and Command are what makes the bundle, for its manifest.
	Cordon  string
	Command []string
}

// Write writes the bundle of ws to out as tar.gz. It refuses a journal
// that does not verify: a bundle vouches for what it carries.
func Write(ctx context.Context, ws *incident.Workspace, out io.Writer, opt Options) (Manifest, error) {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	v, err := ws.VerifyJournal()
	if err != nil {
		return Manifest{}, err
	}
	if err := v.Err(); err != nil {
		return Manifest{}, fmt.Errorf("no bundle of a journal that does not verify: %w", err)
	}
	dir, _ := filepath.Abs(ws.Dir)
	m := Manifest{Version: Version, Incident: dir, Created: opt.Now().UTC(), By: opt.Actor.Name, Cordon: opt.Cordon, Command: opt.Command,
		WithEvidence: opt.WithEvidence, Unredacted: opt.Unredacted}
	members, err := caseFiles(ctx, ws, opt.Unredacted)
	if err != nil {
		return m, err
	}
	// The journal last, so that it holds whatever building the rest
	// journaled; the head the manifest records is that of these bytes.
	jm, v, err := journalSnapshot(ws)
	if err != nil {
		return m, err
	}
	if err := v.Err(); err != nil {
		return m, fmt.Errorf("no bundle of a journal that does not verify: %w", err)
	}
	m.Journal, members = v, append(jm, members...)
	gz := gzip.NewWriter(out)
	tw := tar.NewWriter(gz)
	add := func(name string, data []byte) error {
		m.Files = append(m.Files, File{Name: name, Size: int64(len(data)), SHA256: digest(data)})
		return writeMember(tw, name, data, m.Created)
	}
	for _, f := range members {
		if err := add(f.name, f.data); err != nil {
			return m, err
		}
	}
	if opt.WithEvidence {
		if err := addEvidence(ws, tw, &m); err != nil {
			return m, err
		}
	}
	mb, _ := json.MarshalIndent(m, "", "  ")
	mb = append(mb, '\n')
	if err := writeMember(tw, manifestName, mb, m.Created); err != nil {
		return m, err
	}
	if opt.Signer != nil {
		sig, err := opt.Signer.Sign(mb, journal.NamespaceBundle)
		if err != nil {
			return m, err
		}
		if err := writeMember(tw, manifestName+signatureExt, sig, m.Created); err != nil {
			return m, err
		}
	}
	if err := tw.Close(); err != nil {
		return m, err
	}
	return m, gz.Close()
}

type member struct {
	name string
	data []byte
}

// journalSnapshot reads the journal as stored between two appends (its
// entries and the head they end at), and verifies those very bytes as
// bundle verify will: an entry appended meanwhile is in both the bytes and
// the manifest's head, or in neither.
func journalSnapshot(ws *incident.Workspace) ([]member, journal.Verification, error) {
	entries, head, err := ws.JournalSnapshot()
	if err != nil {
		return nil, journal.Verification{}, err
	}
	var out []member
	if entries != nil {
		out = append(out, member{journalDir + "journal.jsonl", entries})
	}
	if head != nil {
		out = append(out, member{journalDir + "journal.head", head})
	}
	v, err := verifyJournalCopy(out)
	return out, v, err
}

// verifyJournalCopy verifies journal files held in memory, written to a
// directory of their own.
func verifyJournalCopy(files []member) (journal.Verification, error) {
	tmp, err := os.MkdirTemp("", "cordon-bundle-journal-")
	if err != nil {
		return journal.Verification{}, err
	}
	defer os.RemoveAll(tmp)
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(tmp, path.Base(f.name)), f.data, 0o600); err != nil {
			return journal.Verification{}, err
		}
	}
	j, err := journal.Open(tmp)
	if err != nil {
		return journal.Verification{}, err
	}
	return j.Verify()
}

// caseFiles are the case's own files but the journal: the report in its
// three formats, the findings, the capability sets and the receipts.
func caseFiles(ctx context.Context, ws *incident.Workspace, unredacted bool) ([]member, error) {
	var out []member
	var ropts []report.Option
	if unredacted {
		ropts = append(ropts, report.Unredacted())
	}
	r, err := report.Build(ctx, ws, ropts...)
	if err != nil {
		return nil, err
	}
	var md, html bytes.Buffer
	// the Markdown shows its pictures as the files beside it, as -o does
	if err := r.WriteMarkdownPictures(&md, "report-"); err != nil {
		return nil, err
	}
	if err := r.WriteHTML(&html); err != nil {
		return nil, err
	}
	js, _ := json.MarshalIndent(r, "", "  ")
	findings, err := ws.CachedFindings(ctx)
	if err != nil {
		return nil, err
	}
	caps, err := ws.Capabilities(ctx)
	if err != nil {
		return nil, err
	}
	receipts, _, err := ws.Receipts()
	if err != nil {
		return nil, err
	}
	sets := capabilitySets(caps)
	if !unredacted {
		// the case's key: the placeholders the report shows
		red, _ := ws.Redactor()
		redact.Walk(&findings, red)
		redact.Walk(sets, red)
	}
	for _, pic := range r.Pictures() {
		out = append(out, member{root + "report-" + pic.Name, []byte(pic.SVG)})
	}
	out = append(out,
		member{root + "report.md", md.Bytes()},
		member{root + "report.html", html.Bytes()},
		member{root + "report.json", append(js, '\n')},
		member{root + "findings.json", jsonOf(findings)},
		member{root + "capabilities.json", jsonOf(sets)},
		member{root + "evidence-received.json", jsonOf(receipts)},
	)
	return out, nil
}

// capabilitySets is each agent's capability set, by agent.
func capabilitySets(cs *capability.Set) map[string][]capability.Capability {
	out := map[string][]capability.Capability{}
	for _, a := range cs.Agents() {
		out[a] = cs.For(a)
	}
	return out
}

func jsonOf(v any) []byte {
	b, _ := json.MarshalIndent(v, "", "  ")
	return append(b, '\n')
}

// addEvidence copies the bytes received of every received file into the
// bundle (a log grown since is carried as it was received), and says
// whether they still hash to the digest the journal recorded.
func addEvidence(ws *incident.Workspace, tw *tar.Writer, m *Manifest) error {
	checks, err := ws.VerifyEvidence()
	if err != nil && !errors.Is(err, incident.ErrEvidenceChanged) {
		return err // a changed file is carried, and the manifest says so
	}
	for i, c := range checks {
		if c.Receipt.Stdin || c.Status == incident.EvidenceGone || c.Status == incident.EvidenceUnknown {
			continue
		}
		f, err := os.Open(c.Receipt.Resolved)
		if err != nil {
			return fmt.Errorf("evidence: %w", err)
		}
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return err
		}
		size := min(info.Size(), c.Receipt.Read)
		name := fmt.Sprintf("%s%03d-%s", evidenceDir, i+1, safeName(filepath.Base(c.Receipt.Resolved)))
		h := sha256.New()
		hdr := &tar.Header{Name: name, Mode: 0o600, Size: size, ModTime: info.ModTime(), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			f.Close()
			return err
		}
		n, err := io.Copy(io.MultiWriter(tw, h), io.LimitReader(f, size))
		f.Close()
		if err != nil || n != size {
			return fmt.Errorf("evidence %s: copied %d of %d bytes: %v", c.Receipt.Resolved, n, size, err)
		}
		sum := hex.EncodeToString(h.Sum(nil))
		same := sum == c.Receipt.SHA256
		m.Files = append(m.Files, File{Name: name, Size: n, SHA256: sum, Source: c.Receipt.Resolved, AsReceived: &same})
	}
	return nil
}

// safeName keeps a file name to characters every tar reader takes.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}

func writeMember(tw *tar.Writer, name string, data []byte, at time.Time) error {
	if err := tw.WriteHeader(&tar.Header{Name: path.Clean(name), Mode: 0o600, Size: int64(len(data)), ModTime: at, Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	_, err := tw.Write(data)
	return err
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
