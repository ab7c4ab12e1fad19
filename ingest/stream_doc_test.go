package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Ingesting through Run: the file is read once, an unchanged file is not
// read again, and a .eval on stdin works.
func TestInspectThroughRun(t *testing.T) {
	st := newStore(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "run.eval")
	data, _ := os.ReadFile(sample("inspect_ai", "log_read_sample.eval"))
	os.WriteFile(path, data, 0o644)
	res := ingestOnce(t, st, nil, path)
	if res[0].Format != "inspect" || res[0].Events != 4 || res[0].New != 4 {
		t.Fatalf("first run: %+v", res[0])
	}
	res = ingestOnce(t, st, nil, path)
	if res[0].Events != 0 {
		t.Errorf("unchanged file read again: %+v", res[0])
	}
	out, err := Run(t.Context(), []string{"-"}, Options{Store: st, Stdin: bytes.NewReader(data)})
	if err != nil || out[0].Err != nil || out[0].Events != 4 || out[0].New != 0 {
		t.Errorf("stdin: %+v %v", out, err)
	}
}

// A log rewritten with one more sample (Inspect rewrites its .json as it
// goes) is read again whole; only the new sample's events are new.
func TestInspectRewrittenLogAddsOnlyNewEvents(t *testing.T) {
	st := newStore(t)
	path := filepath.Join(t.TempDir(), "live.json")
	// The header is longer than the 1 KiB a checkpoint compares.
	one := `{"version": 2, "status": "started", "eval": {"run_id": "R", "eval_id": "E", "task": "t", "created": "2026-07-21T10:00:00Z", ` +
		`"task_file": "` + strings.Repeat("x", 1100) + `"}, "samples": [` +
		`{"id": 1, "epoch": 1, "events": [{"event": "info", "timestamp": "2026-07-21T10:00:01Z", "data": "a"}]}`
	two := `, {"id": 2, "epoch": 1, "events": [{"event": "info", "timestamp": "2026-07-21T10:00:02Z", "data": "b"}]}`
	os.WriteFile(path, []byte(one+"]}"), 0o644)
	if res := ingestOnce(t, st, nil, path); res[0].New != 3 {
		t.Fatalf("first run: %+v", res[0])
	}
	os.WriteFile(path, []byte(one+two+"]}"), 0o644)
	if res := ingestOnce(t, st, nil, path); res[0].Events != 6 || res[0].New != 3 {
		t.Errorf("rewritten log: %+v", res[0])
	}
	if res := ingestOnce(t, st, nil, path); res[0].Events != 0 {
		t.Errorf("unchanged log read again: %+v", res[0])
	}
	three := strings.ReplaceAll(strings.ReplaceAll(two, `"id": 2`, `"id": 3`), `"b"`, `"c"`)
	os.WriteFile(path, []byte(one+two+three+"]}"), 0o644)
	if res := ingestOnce(t, st, nil, path); res[0].Events != 9 || res[0].New != 3 {
		t.Errorf("log rewritten after an unchanged run: %+v", res[0])
	}
	if n := st.Counts().Total; n != 9 {
		t.Errorf("%d events in the store, want 9", n)
	}
}
