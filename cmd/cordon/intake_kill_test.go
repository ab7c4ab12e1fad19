package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An ingest killed three times, then run to its end: the detectors after
// it read the index (a crash leaves no log of the index, and the ingest
// says so), and their findings are those of a replay from the index with
// no log at all. A later ingest of a copy of the same files (every event
// already stored) changes nothing; one with ten events more merges its
// intake with the log the replay wrote, and its findings are those of a
// replay of the index.
func TestIngestKilledThreeTimesThenTheLogIsTheIndexs(t *testing.T) {
	sample := filepath.Join("..", "..", "sample-incidents", "credential-theft")
	pad := filepath.Join(t.TempDir(), "ledger-pad.jsonl")
	writeLedger(t, pad, 30000)
	dir := filepath.Join(t.TempDir(), "incident")
	for _, delay := range []time.Duration{30 * time.Millisecond, 300 * time.Millisecond, 600 * time.Millisecond} {
		killIngest(t, dir, delay, sample, pad)
	}
	code, out, errOut := cordon("ingest", "--incident", dir, sample, pad)
	if code != 0 {
		t.Fatalf("ingest after three kills: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "kept with the case (the events read from") {
		t.Fatalf("the ingest does not say what its detectors read:\n%s", errOut)
	}
	t.Log(detectorsLine(errOut))
	kept := findingsJSON(t, dir)

	engine := filepath.Join(dir, "engine")
	for _, f := range []string{"events.log", "events.json"} {
		if err := os.Remove(filepath.Join(engine, f)); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	fromIndex := findingsJSON(t, dir, "--recompute")
	if kept != fromIndex {
		t.Fatalf("the findings the ingest kept differ from a replay of the index:\n%s\n---\n%s", kept, fromIndex)
	}

	// A copy of the same files stores nothing and changes no attribution:
	// the kept answer stands, and no replay runs.
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = cordon("ingest", "--incident", dir, cp)
	if code != 0 {
		t.Fatalf("ingest of a copy: exit %d\n%s%s", code, out, errOut)
	}
	if l := detectorsLine(errOut); !strings.HasSuffix(l, "kept with the case") || !strings.Contains(l, " 0 created, 0 updated, 0 withdrawn") {
		t.Fatalf("a copy of stored files changed the evidence, or its detectors read it again:\n%s", l)
	}
	// The copy again with a longer pad: ten events are new, and the
	// detectors read the log the ingest merged from its intake (the
	// copy's events, all stored already, and the new ones) and the log
	// the replay from the index wrote.
	writeLedger(t, filepath.Join(cp, "ledger-pad.jsonl"), 30010)
	code, out, errOut = cordon("ingest", "--incident", dir, cp)
	if code != 0 {
		t.Fatalf("ingest of a copy and ten events: exit %d\n%s%s", code, out, errOut)
	}
	t.Log(detectorsLine(errOut))
	if !strings.Contains(errOut, "read from the replay log the ingest wrote") {
		t.Fatalf("after a copy of stored files and ten events the detectors did not read the log the ingest wrote:\n%s", errOut)
	}
	kept = findingsJSON(t, dir)
	for _, f := range []string{"events.log", "events.json"} {
		if err := os.Remove(filepath.Join(engine, f)); err != nil {
			t.Fatal(err)
		}
	}
	if got := findingsJSON(t, dir, "--recompute"); got != kept {
		t.Fatalf("the findings of the merged log differ from a replay of the index:\n%s\n---\n%s", kept, got)
	}
}

func findingsJSON(t *testing.T, dir string, more ...string) string {
	t.Helper()
	code, out, errOut := cordon(append([]string{"findings", "--incident", dir, "--json"}, more...)...)
	if code != 0 {
		t.Fatalf("findings %v: exit %d\n%s", more, code, errOut)
	}
	return out
}

// detectorsLine is the line an ingest's stderr says its detectors' answer in.
func detectorsLine(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "detectors: ") {
			return l
		}
	}
	return "(no detectors line)"
}
