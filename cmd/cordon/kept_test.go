package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The ingest runs the detectors once and keeps their result with the
// case; findings reads it (and --recompute gives the same), more evidence
// ingested without the detectors makes it stale so a reader computes it
// again, and each round that ran them journaled what it changed.
func TestFindingsReadTheKeptResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc")
	sample := filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")
	code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join(sample, "ledger.jsonl"), filepath.Join(sample, "sensor"))
	if code != 0 || !strings.Contains(errOut, "detectors: 3 finding(s): 3 created") {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "engine", "result.gob")); err != nil {
		t.Fatal(err)
	}
	_, kept, _ := cordon("findings", "--incident", dir, "--json")
	_, fresh, _ := cordon("findings", "--incident", dir, "--json", "--recompute")
	if kept == "" || kept != fresh {
		t.Errorf("the kept result and a new run differ:\n%s\n%s", kept, fresh)
	}
	if code, _, errOut := cordon("ingest", "--incident", dir, "--detect=false", filepath.Join(sample, "proxy")); code != 0 || strings.Contains(errOut, "detectors: ") {
		t.Fatalf("ingest --detect=false: %d %s", code, errOut)
	}
	_, after, errOut := cordon("findings", "--incident", dir, "--json")
	if after == kept {
		t.Error("the proxy log changed no finding: a stale kept result was read")
	}
	if !strings.Contains(errOut, "the evidence changed since the result was kept: the detectors ran again") || !strings.Contains(errOut, "kept for the next command") {
		t.Errorf("a stale result recomputed without a word: %q", errOut)
	}
	// the owner's reader kept what it ran: the next command reads it
	if _, again, errOut := cordon("findings", "--incident", dir, "--json"); again != after || errOut != "" {
		t.Errorf("the next command did not read what the last kept: %q", errOut)
	}
	if _, _, errOut := cordon("findings", "--incident", dir, "--json", "--recompute"); strings.Contains(errOut, "ran again") {
		t.Errorf("--recompute is asked for, not explained: %q", errOut)
	}
	code, out, errOut := cordon("journal", "--incident", dir)
	if code != 0 || strings.Count(out, "findings_changed") != 1 || !strings.Contains(out, "3 created") {
		t.Errorf("journal: %d %s\n%s", code, errOut, out)
	}
}
