//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Regression: a full disk was reported as success. The index's writes
// fail in the background after each batch is searchable; ingest printed
// "300000 events (300000 new)", exited 0 and checkpointed the end of the
// file, and stats then had 10,000. Now the run ends with exitWrite,
// saying how many events it stored, sources.json never claims more, and
// the same ingest again stores the rest, each event once.
func TestFullDiskIsReportedWithWhatWasStored(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 30,000 events twice")
	}
	dir := filepath.Join(t.TempDir(), "inc")
	first, big := filepath.Join(t.TempDir(), "first.jsonl"), filepath.Join(t.TempDir(), "big.jsonl")
	writeLedger(t, big, 30000)
	writeLedger(t, first, 500)
	// other records than big's first 500, so that none is a duplicate
	b, _ := os.ReadFile(first)
	os.WriteFile(first, bytes.ReplaceAll(b, []byte("curl"), []byte("wget")), 0o644)
	if code, _, errOut := cordon("ingest", "--incident", dir, first); code != exitOK {
		t.Fatalf("first ingest: %d %s", code, errOut)
	}

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CORDON_TEST_ARGS="+strings.Join([]string{"ingest", "--incident", dir, big}, "\x1f"),
		"CORDON_TEST_FSIZE="+strconv.Itoa(2<<20))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitWrite {
		t.Fatalf("ingest past the size limit: %v, want exit code %d\n%s", err, exitWrite, out.String())
	}
	m := regexp.MustCompile(`stored (\d+) of (\d+) events read`).FindStringSubmatch(out.String())
	if m == nil || !strings.Contains(out.String(), "file too large") {
		t.Fatalf("the error does not say what was stored and why the rest was not:\n%s", out.String())
	}
	stored, read := atoi(t, m[1]), atoi(t, m[2])
	if stored >= read || read == 0 {
		t.Fatalf("stored %d of %d: the size limit was never reached\n%s", stored, read, out.String())
	}
	if got := eventCount(t, dir); got != int64(500+stored) {
		t.Errorf("after the failed run the index holds %d events; it said it stored %d after the first 500", got, stored)
	}
	// sources.json may name big.jsonl only as far as its events are stored
	// (a merge failed, every batch before it was on disk): never further.
	for _, c := range checkpoints(t, dir) {
		switch c.Path {
		case first:
		case big:
			if c.Line-1 != stored {
				t.Errorf("sources.json has %s at line %d, %d events stored", big, c.Line, stored)
			}
		default:
			t.Errorf("sources.json names %s", c.Path)
		}
	}

	code, stdout, errOut := cordon("ingest", "--incident", dir, big)
	if code != exitOK {
		t.Fatalf("re-run: %d %s%s", code, stdout, errOut)
	}
	if got := eventCount(t, dir); got != 30500 {
		t.Errorf("after the re-run: %d events, want 30500", got)
	}
	// With several batch builders the last checkpoint may lag what is on
	// disk by the batches still building when the disk filled: those are
	// read again and skipped by id, never counted twice.
	m = regexp.MustCompile(`(\d+) events \((\d+) new\)`).FindStringSubmatch(stdout)
	if m == nil || atoi(t, m[2]) != 30000-stored || atoi(t, m[1]) < 30000-stored {
		t.Errorf("re-run says %q, want %d new events", stdout, 30000-stored)
	}
	info, _ := os.Stat(big)
	found := false
	for _, c := range checkpoints(t, dir) {
		if c.Path == big {
			found = c.Offset == info.Size()
		}
	}
	if !found {
		t.Errorf("sources.json after the re-run does not have %s read to its end: %v", big, checkpoints(t, dir))
	}
}

type checkpoint struct {
	Path   string
	Offset int64
	Line   int
}

func checkpoints(t *testing.T, dir string) []checkpoint {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "sources.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cks []checkpoint
	if err := json.Unmarshal(b, &cks); err != nil {
		t.Fatal(err)
	}
	return cks
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
