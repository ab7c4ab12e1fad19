package incidenttest

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// ConsoleFixture is the folder of the console fixture: a ledger of two
// agents (one probing the metadata endpoint, raw sockets and persistence),
// with Squid, Falco and Tetragon records of the same sandboxes and minutes.
// The path is relative to the test's directory when it can be, so that
// origins (file:line) in golden files do not depend on the checkout.
func ConsoleFixture() string {
	_, file, _, _ := runtime.Caller(0)
	abs := filepath.Join(filepath.Dir(file), "..", "testdata", "console")
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, abs); err == nil {
			return rel
		}
	}
	return abs
}

// FixtureActor and FixtureReceived are who journals the evidence New
// ingests, and when.
var (
	FixtureActor    = journal.Actor{Name: "fixture", Via: journal.ViaCLI}
	FixtureReceived = time.Date(2026, 7, 21, 12, 0, 0, 0, time.UTC)
)

// New ingests inputs (the console fixture when none) into a workspace in
// t.TempDir() and returns it open for writing; it is closed at cleanup.
func New(t testing.TB, inputs ...string) *incident.Workspace {
	t.Helper()
	if len(inputs) == 0 {
		inputs = []string{ConsoleFixture()}
	}
	dir := filepath.Join(t.TempDir(), "fixture-incident")
	ws, err := incident.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	// The evidence received is journaled by one fixed actor at one fixed
	// time, so that views of the journal are the same on every run.
	ws.SetClock(func() time.Time { return FixtureReceived })
	res, err := ws.Ingest(context.Background(), inputs, incident.IngestOptions{Actor: FixtureActor})
	ws.SetClock(time.Now)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Path, r.Err)
		}
	}
	return ws
}

// WriteFile writes data to name in a fresh temporary folder and returns its
// path: for tests that build hostile or odd evidence.
func WriteFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Casework is the journal of ws without the evidence_received entries its
// ingest wrote: what a test did to the case, in order.
func Casework(t testing.TB, ws *incident.Workspace) []journal.Entry {
	t.Helper()
	entries, err := ws.JournalEntries()
	if err != nil {
		t.Fatal(err)
	}
	return WithoutReceipts(entries)
}

// WithoutReceipts drops the evidence_received entries from entries.
func WithoutReceipts(entries []journal.Entry) []journal.Entry {
	var out []journal.Entry
	for _, e := range entries {
		if e.Type != journal.EntryEvidenceReceived {
			out = append(out, e)
		}
	}
	return out
}

// Samples are the bundled sample incidents' folders (those with a
// truth.yaml), from a package folder one level below the module's root;
// it fails the test when there are fewer than six.
func Samples(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "truth.yaml"))
	if err != nil || len(paths) < 6 {
		t.Fatalf("samples: %v %v", paths, err)
	}
	dirs := make([]string, len(paths))
	for i, p := range paths {
		dirs[i] = filepath.Dir(p)
	}
	return dirs
}
