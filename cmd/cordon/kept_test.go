package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The ingest runs the detectors once and keeps their result with the
// case; findings, its ranking and check read it (a title changed in the
// kept file shows), --recompute runs them again, and more evidence makes
// the kept result stale, so it is computed again.
func TestFindingsReadTheKeptResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc")
	sample := filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")
	code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join(sample, "ledger.jsonl"), filepath.Join(sample, "sensor"))
	if code != 0 || !strings.Contains(errOut, "detectors: ") {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	kept := filepath.Join(dir, "engine", "result.json")
	b, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	const title = "Activity after the session ended"
	if !strings.Contains(string(b), title) {
		t.Fatalf("the kept result has no %q finding", title)
	}
	if err := os.WriteFile(kept, []byte(strings.ReplaceAll(string(b), title, "KEPT TITLE")), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := cordon("findings", "--incident", dir, "--json"); code != 0 || !strings.Contains(out, "KEPT TITLE") {
		t.Errorf("findings did not read the kept result: %d %s %.300s", code, errOut, out)
	}
	if code, out, errOut := cordon("findings", "--incident", dir, "--json", "--recompute"); code != 0 || strings.Contains(out, "KEPT TITLE") || !strings.Contains(out, title) {
		t.Errorf("--recompute: %d %s %.300s", code, errOut, out)
	}
	// the proxy log adds events: the kept result is of other evidence
	if err := os.WriteFile(kept, []byte(strings.ReplaceAll(mustRead(t, kept), title, "KEPT TITLE")), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := cordon("ingest", "--incident", dir, "--detect=false", filepath.Join(sample, "proxy")); code != 0 || strings.Contains(errOut, "detectors: ") {
		t.Fatalf("ingest --detect=false: %d %s", code, errOut)
	}
	if code, out, errOut := cordon("findings", "--incident", dir, "--json"); code != 0 || strings.Contains(out, "KEPT TITLE") {
		t.Errorf("a stale kept result was read: %d %s %.300s", code, errOut, out)
	}
	// each ingest round that ran the detectors journaled what it changed
	code, out, errOut := cordon("journal", "--incident", dir)
	if code != 0 || strings.Count(out, "findings_changed") != 1 || !strings.Contains(out, "created") {
		t.Errorf("journal: %d %s\n%s", code, errOut, out)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
