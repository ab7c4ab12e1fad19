package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIngestRefusesABrokenLink: an evidence path that is a broken symbolic
// link exits 3 naming it and where it points, named on its own or met in
// a folder; nothing of the folder is ingested in silence without it
// (issue 33).
func TestIngestRefusesABrokenLink(t *testing.T) {
	ev := t.TempDir()
	ledger, err := os.ReadFile(filepath.Join("..", "..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ev, "ledger.jsonl"), ledger, 0o600)
	gone := filepath.Join(t.TempDir(), "access.log")
	link := filepath.Join(ev, "access.log")
	if err := os.Symlink(gone, link); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	for _, in := range []string{ev, link} {
		ws := filepath.Join(t.TempDir(), "incident")
		code, _, errOut := cordon("ingest", "--incident", ws, in)
		if code != exitUnreadable || !strings.Contains(errOut, link+" is a symbolic link to "+gone) {
			t.Errorf("ingest %s: exit %d, %q; want 3 naming the link", in, code, errOut)
		}
	}
}
