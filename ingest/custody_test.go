package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// The digest of what was received covers the file from its start on every
// run: the first, a re-run that reads nothing new, and one that resumes
// after lines were appended.
func TestReceivedDigestCoversTheWholeFile(t *testing.T) {
	st, rej := newStore(t), &memRejects{}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, path, 0, 50)
	check := func(run string, res FileResult) {
		t.Helper()
		b, _ := os.ReadFile(path)
		r := res.Received
		if r == nil {
			t.Fatalf("%s: no Received", run)
		}
		if r.SHA256 != sha(b) || r.Read != int64(len(b)) || !r.ToEnd || r.Size != int64(len(b)) {
			t.Errorf("%s: received %+v, want the digest of all %d bytes", run, r, len(b))
		}
		if r.Resolved == "" || !filepath.IsAbs(r.Resolved) || r.Stdin || r.ModTime.IsZero() || r.Inode == 0 {
			t.Errorf("%s: received %+v lacks where the file is", run, r)
		}
	}
	check("first run", ingestOnce(t, st, rej, path)[0])
	check("re-run", ingestOnce(t, st, rej, path)[0])
	writeLines(t, path, 50, 60)
	res := ingestOnce(t, st, rej, path)[0]
	if res.ResumedAt == 0 || res.Events != 10 {
		t.Fatalf("append: resumed at %d with %d events, want a resume reading 10", res.ResumedAt, res.Events)
	}
	check("resumed run", res)
}

// A gzip file records the digest of the bytes as stored and of the bytes
// they decompress to.
func TestReceivedDigestOfGzip(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.jsonl")
	writeLines(t, plain, 0, 40)
	text, _ := os.ReadFile(plain)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(text)
	zw.Close()
	gz := filepath.Join(dir, "ledger.jsonl.gz")
	if err := os.WriteFile(gz, zb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := ingestOnce(t, newStore(t), &memRejects{}, gz)[0].Received
	if !r.Gzip || r.SHA256 != sha(zb.Bytes()) || r.PlainSHA256 != sha(text) || r.PlainRead != int64(len(text)) || !r.ToEnd {
		t.Errorf("received %+v, want stored digest %s and decompressed %s", r, sha(zb.Bytes()), sha(text))
	}
}

// Stdin is recorded as such, with the digest of what the pipe gave.
func TestReceivedDigestOfStdin(t *testing.T) {
	var in strings.Builder
	for i := range 5 {
		in.WriteString(ledgerLine(i) + "\n")
	}
	res, err := Run(context.Background(), []string{"-"}, Options{Store: newStore(t), Rejects: &memRejects{}, Stdin: strings.NewReader(in.String())})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0].Received
	if r == nil || !r.Stdin || r.Resolved != "" || r.SHA256 != sha([]byte(in.String())) {
		t.Errorf("stdin received %+v", r)
	}
}

// A file in a format cordon cannot name is still recorded as received.
func TestReceivedDigestOfAnUnknownFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.bin")
	data := bytes.Repeat([]byte{0, 1, 2, 3}, 100)
	os.WriteFile(path, data, 0o644)
	res, err := Run(context.Background(), []string{path}, Options{Store: newStore(t), Rejects: &memRejects{}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err == nil || res[0].Received == nil || res[0].Received.Size != int64(len(data)) {
		t.Fatalf("unknown format: %+v", res[0])
	}
}

// A resume seeks past what its checkpoint covers instead of reading the
// file again from its first byte: the digest it goes on from is that of
// the bytes ingested then, so a later change to them is not read (and the
// receipt's digest, of what was ingested, is what custody verify finds
// changed).
func TestResumeDoesNotReadTheFileAgain(t *testing.T) {
	st, rej := newStore(t), &memRejects{}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, path, 0, 200)
	ingestOnce(t, st, rej, path)
	before, _ := os.ReadFile(path)
	if len(before) < 4*headLen {
		t.Fatalf("a %d-byte file: too short to change past its head", len(before))
	}
	// change one byte well after the head, then append
	changed := bytes.Clone(before)
	changed[len(changed)/2] ^= 0x20
	if err := os.WriteFile(path, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	writeLines(t, path, 200, 210)
	after, _ := os.ReadFile(path)
	res := ingestOnce(t, st, rej, path)[0]
	if res.ResumedAt != int64(len(before)) || res.Events != 10 {
		t.Fatalf("resumed at %d with %d events, want at %d with 10", res.ResumedAt, res.Events, len(before))
	}
	want := sha(append(bytes.Clone(before), after[len(before):]...))
	if r := res.Received; r.SHA256 != want || r.Read != int64(len(after)) {
		t.Errorf("received %s over %d bytes, want %s: the first run's bytes and the appended ones", r.SHA256, r.Read, want)
	}
}
