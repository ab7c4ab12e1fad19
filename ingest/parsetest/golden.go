package parsetest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// update is the -update flag of every parser package's tests.
var update = flag.Bool("update", false, "rewrite golden files in testdata/golden")

// Collect is a Sink that keeps everything.
type Collect struct {
	Events  []evidence.Event
	Rejects []parse.Reject
	// Stages counts the records merged into a later stage's event
	// (ingest.MergeSink).
	Stages int
}

// Merged counts records merged into a later stage's event.
func (c *Collect) Merged(n int) { c.Stages += n }

func (c *Collect) Event(ev evidence.Event) error { c.Events = append(c.Events, ev); return nil }
func (c *Collect) Reject(r parse.Reject) error   { c.Rejects = append(c.Rejects, r); return nil }

// ParseFile parses a file with p as ingest would; origins name the file
// without its directory, so golden files do not depend on where it is.
func ParseFile(t *testing.T, p parse.Parser, path string) *Collect {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &Collect{}
	if _, err := ingest.Stream(f, filepath.Base(path), p, ingest.Position{}, c, nil); err != nil {
		t.Fatalf("stream %s: %v", path, err)
	}
	return c
}

// CheckGolden compares the parsed events of a sample (raw left out, it is the
// input) and its rejects with testdata/golden/NAME.json in the package
// under test; with -update it writes the file instead.
func CheckGolden(t *testing.T, name string, c *Collect) {
	t.Helper()
	evs := make([]evidence.Event, len(c.Events))
	for i, ev := range c.Events {
		ev.Raw = ""
		evs[i] = ev
	}
	got, err := json.MarshalIndent(struct {
		Events  []evidence.Event `json:"events"`
		Rejects []parse.Reject   `json:"rejects"`
	}{evs, c.Rejects}, "", "  ")
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
		t.Fatalf("%v (run the test with -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden file %s; diff it with -update and review:\n%s", name, path, firstDiff(got, want))
	}
}

func firstDiff(a, b []byte) string {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := 0; i < len(la) && i < len(lb); i++ {
		if !bytes.Equal(la[i], lb[i]) {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + string(la[i]) + "\nwant: " + string(lb[i])
		}
	}
	return "lengths differ"
}
