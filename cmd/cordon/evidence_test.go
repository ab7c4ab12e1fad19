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

// `cordon bundle` writes a signed case bundle and journals it; `cordon
// bundle verify` checks it, and exits 7 on one that was altered.
func TestBundleCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "case")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "credential-theft")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	out := filepath.Join(t.TempDir(), "case.tar.gz")
	code, stdout, errOut := cordon("bundle", "--incident", dir, "-o", out, "--with-evidence")
	if code != 0 || !strings.Contains(stdout, "journal to entry 5") || !strings.Contains(errOut, "carries the evidence files") {
		t.Fatalf("bundle: %d %s %s", code, stdout, errOut)
	}
	if code, stdout, _ := cordon("journal", "--incident", dir, "--type", "bundle_written"); code != 0 || !strings.Contains(stdout, "case.tar.gz") {
		t.Errorf("the bundle is not journaled: %d %s", code, stdout)
	}
	if code, stdout, errOut := cordon("bundle", "verify", out); code != 0 || !strings.Contains(stdout, "bundle ok") || !strings.Contains(stdout, "unsigned") {
		t.Errorf("verify: %d %s %s", code, stdout, errOut)
	}
	b, _ := os.ReadFile(out)
	b[len(b)/2] ^= 0xff // inside the compressed stream
	os.WriteFile(out, b, 0o600)
	if code, _, errOut := cordon("bundle", "verify", out); code != exitTampered {
		t.Errorf("a damaged bundle: %d %s", code, errOut)
	}
}
