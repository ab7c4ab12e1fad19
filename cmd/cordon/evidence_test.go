package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `cordon evidence verify` says which files still hold what was received,
// and exits 7 when one does not.
func TestEvidenceVerifyCommand(t *testing.T) {
	src := t.TempDir()
	for _, name := range []string{"ledger.jsonl", "access.log"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "sample-incidents", "credential-theft", map[string]string{"ledger.jsonl": "ledger.jsonl", "access.log": "proxy/access.log"}[name]))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(src, name), b, 0o644)
	}
	dir := filepath.Join(t.TempDir(), "case")
	if code, _, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("evidence", "verify", "--incident", dir)
	if code != 0 || strings.Count(out, "match ") != 2 || !strings.Contains(out, "2 files: 2 match") {
		t.Fatalf("fresh: %d %s %s", code, out, errOut)
	}
	log := filepath.Join(src, "access.log")
	b, _ := os.ReadFile(log)
	os.WriteFile(log, []byte(strings.Replace(string(b), "TCP_DENIED", "TCP_TUNNEL", 1)), 0o644)
	code, out, errOut = cordon("evidence", "verify", "--incident", dir)
	if code != exitTampered || !strings.Contains(out, "changed  "+log) || !strings.Contains(out, "1 match, 0 grew, 1 changed") || !strings.Contains(errOut, "evidence changed") {
		t.Errorf("edited: %d\n%s\n%s", code, out, errOut)
	}
	if code, _, _ := cordon("evidence", "--incident", dir); code != exitUsage {
		t.Errorf("no subcommand: %d", code)
	}
}
