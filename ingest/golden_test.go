package ingest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// collect is a Sink that keeps everything.
type collect struct {
	events  []evidence.Event
	rejects []Reject
}

func (c *collect) Event(ev evidence.Event) error { c.events = append(c.events, ev); return nil }
func (c *collect) Reject(r Reject) error         { c.rejects = append(c.rejects, r); return nil }

// parseFile parses a sample with p as ingest would, origins relative to testdata.
func parseFile(t *testing.T, p Parser, path string) *collect {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &collect{}
	if _, err := Stream(f, filepath.Base(path), p, Position{}, c, nil); err != nil {
		t.Fatalf("stream %s: %v", path, err)
	}
	return c
}

// checkGolden compares the parsed events of a sample (raw left out, it is the
// input) and its rejects with testdata/golden/NAME.json.
func checkGolden(t *testing.T, name string, c *collect) {
	t.Helper()
	evs := make([]evidence.Event, len(c.events))
	for i, ev := range c.events {
		ev.Raw = ""
		evs[i] = ev
	}
	got, err := json.MarshalIndent(struct {
		Events  []evidence.Event `json:"events"`
		Rejects []Reject         `json:"rejects"`
	}{evs, c.rejects}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ingest -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file %s; diff it with -update and review:\n%s", name, path, firstDiff(got, want))
	}
}

func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) && i < len(lb); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return "line " + itoa(i+1) + ":\n got: " + string(la[i]) + "\nwant: " + string(lb[i])
		}
	}
	return "lengths differ"
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// sample is the path of a real format sample.
func sample(parts ...string) string {
	return filepath.Join(append([]string{"testdata", "formats"}, parts...)...)
}
