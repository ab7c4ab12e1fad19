package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A CloudTrail file with one {} record and no trailing newline gave 0
// events, exit 0, and nothing in the journal said so. Now an input that is
// not empty and gives no event fails the ingest with exit 11, says where
// and why, and the journal keeps it; a re-run that adds nothing and a
// valid empty file exit 0.
func TestIngestOfAFileThatGivesNoEventExits11(t *testing.T) {
	src := t.TempDir()
	bad := filepath.Join(src, "trail.json")
	empty := filepath.Join(src, "empty-trail.json")
	good := filepath.Join(src, "ledger.jsonl")
	os.WriteFile(bad, []byte(`{"Records":[{}]}`), 0o644)
	os.WriteFile(empty, []byte(`{"Records":[]}`), 0o644)
	writeLedger(t, good, 3)
	dir := filepath.Join(t.TempDir(), "incident")

	code, out, errOut := cordon("ingest", "--incident", dir, good, bad)
	if code != 11 {
		t.Fatalf("exit %d, want 11\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"trail.json:1 (byte 0)", "no eventSource or eventName", "no events from this file"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "no events from a non-empty input") || !strings.Contains(errOut, "trail.json") || strings.Contains(errOut, "ledger.jsonl") {
		t.Errorf("stderr: %s", errOut)
	}
	if n := eventCount(t, dir); n != 3 {
		t.Errorf("the good file's events: %d", n)
	}
	_, jout, _ := cordon("journal", "--incident", dir)
	if !strings.Contains(jout, "0 records, 1 rejects") || !strings.Contains(jout, "no events: 1 record(s) rejected") {
		t.Errorf("journal does not keep the loss:\n%s", jout)
	}

	if code, out, errOut := cordon("ingest", "--incident", dir, good, bad); code != 0 {
		t.Errorf("re-run that adds nothing new: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := cordon("ingest", "--incident", dir, empty); code != 0 {
		t.Errorf("valid empty container: exit %d\n%s%s", code, out, errOut)
	}

	// --json says it too, and an unfinished only line is a loss as well.
	cut := filepath.Join(src, "access.log")
	os.WriteFile(cut, []byte(`1525334330.000 3 10.0.3.7 TCP_MISS/200 20`), 0o644)
	code, out, _ = cordon("ingest", "--incident", dir, "--json", "--format", "squid", cut)
	var res struct {
		NoEvents string `json:"no_events"`
		Held     struct {
			Origin string `json:"origin"`
		} `json:"held"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err, out)
	}
	if code != exitNoEvents || !strings.Contains(res.NoEvents, "left unread") || !strings.HasSuffix(res.Held.Origin, "access.log:1") {
		t.Errorf("unfinished only line: exit %d %s", code, out)
	}
}

// A gzip file cut short is read to its cut: the command says it was read
// only in part and fails, and what it held reaches the findings (the
// detectors run on it, as on any ingest) rather than being left out.
func TestIngestOfAGzipCutShort(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	cut := filepath.Join(t.TempDir(), "ledger.jsonl.gz")
	os.WriteFile(cut, gz.Bytes()[:gz.Len()*2/3], 0o644)
	dir := filepath.Join(t.TempDir(), "incident")
	code, out, errOut := cordon("ingest", "--incident", dir, cut)
	if code == 0 || !strings.Contains(errOut, "read only in part") || !strings.Contains(out, "cut short") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "detectors: ") {
		t.Errorf("the detectors did not run on what the file held:\n%s", errOut)
	}
	if n := eventCount(t, dir); n == 0 {
		t.Error("nothing of the file was stored")
	}
}
