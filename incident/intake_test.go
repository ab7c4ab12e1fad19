package incident

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// loggedEvents are the events of the workspace's replay log, which must
// be of the index now.
func loggedEvents(t *testing.T, ws *Workspace) []evidence.Event {
	t.Helper()
	m, _, why := ws.logOfIndex()
	if why != "" {
		t.Fatalf("the replay log is not of the index: %s", why)
	}
	var evs []evidence.Event
	err := eachLogged(context.Background(), filepath.Join(ws.Dir, engineDir, replayLogFile), m.Events, evidence.EventDecoder{}, func(ev evidence.Event) error {
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// indexLog is the replay log a replay from the index writes: the log of
// the workspace is removed, a replay reads the index and writes it anew.
func indexLog(t *testing.T, ws *Workspace) []evidence.Event {
	t.Helper()
	dropReplayLog(t, ws)
	if _, err := ws.ScanWith(context.Background(), FindingsOptions{}); err != nil {
		t.Fatal(err)
	}
	if from := ws.ReplayedFrom(); !strings.Contains(from, "written for the next") {
		t.Fatalf("the replay read %q", from)
	}
	return loggedEvents(t, ws)
}

// sameEvents fails unless the two logs hold the same events, field by
// field, in the same order.
func sameEvents(t *testing.T, what string, got, want []evidence.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, the index's log %d", what, len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: event %d is\n %+v\nthe index's log has\n %+v", what, i, got[i], want[i])
		}
	}
}

func ingestInto(t *testing.T, ws *Workspace, inputs ...string) (bool, string) {
	t.Helper()
	if _, err := ws.Ingest(context.Background(), inputs, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return ws.IngestWroteLog()
}

func newWorkspace(t *testing.T) *Workspace {
	t.Helper()
	ws, err := Create(filepath.Join(t.TempDir(), "inc"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// On every bundled sample the ingest writes the replay log from what it
// stored, and that log holds what a replay from the index writes: the
// same events, every field, in the same order; the replay after the
// ingest reads it. In two samples (cloud-key-after-kill,
// created-workload) the audit log sorts before the ledger, and attribution
// rewrites its events at the ingest's end: the log holds them rewritten.
// Where the ingest writes none it says why, and the replay reads the
// index.
func TestIngestWritesTheReplayLog(t *testing.T) {
	samples, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "README.md"))
	if err != nil || len(samples) < 6 {
		t.Fatalf("samples: %v %v", samples, err)
	}
	wrote := 0
	for _, readme := range samples {
		sample := filepath.Dir(readme)
		t.Run(filepath.Base(sample), func(t *testing.T) {
			ws := newWorkspace(t)
			ok, why := ingestInto(t, ws, sample)
			if _, err := ws.ScanWith(context.Background(), FindingsOptions{}); err != nil {
				t.Fatal(err)
			}
			from := ws.ReplayedFrom()
			if !ok {
				if why == "" || !strings.HasPrefix(from, "the index") {
					t.Fatalf("no log written (%q), and the replay read %q", why, from)
				}
				t.Logf("no log from the intake: %s", why)
				return
			}
			wrote++
			if from != "the replay log" {
				t.Fatalf("the replay after the ingest read %q", from)
			}
			got := loggedEvents(t, ws)
			sameEvents(t, sample, got, indexLog(t, ws))
		})
	}
	if wrote < len(samples) {
		t.Errorf("the ingest wrote the log for %d samples of %d", wrote, len(samples))
	}
}

// A second ingest merges its runs with the log the first left; events
// already stored (the same files again) are in the log once; an index
// whose log was removed gets none from the next ingest.
func TestIngestLogAcrossIngests(t *testing.T) {
	sample := filepath.Join("..", "sample-incidents", "egress-probe-exfil")
	ws := newWorkspace(t)
	check := func(what string, wantWrote bool, wantWhy string, inputs ...string) {
		t.Helper()
		ok, why := ingestInto(t, ws, inputs...)
		if ok != wantWrote || !strings.Contains(why, wantWhy) {
			t.Fatalf("%s: wrote %v (%q), want %v (%q)", what, ok, why, wantWrote, wantWhy)
		}
		if ok {
			sameEvents(t, what, loggedEvents(t, ws), indexLog(t, ws))
		}
	}
	check("the ledger alone", true, "", filepath.Join(sample, "ledger.jsonl"))
	// the proxy's and the sensor's files: runs that begin before the
	// log's last event
	check("the proxy and the sensor after", true, "", filepath.Join(sample, "proxy"), filepath.Join(sample, "sensor"))
	// every event again, from a copy (a copy's events have the same ids):
	// each is in the log once
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(sample)); err != nil {
		t.Fatal(err)
	}
	check("a copy of the same files", true, "", cp)
	dropReplayLog(t, ws)
	check("with no log of the index", false, "the index held events no replay log held", filepath.Join("..", "sample-incidents", "busy-benign"))
}

// What the intake cannot see as the index keeps it means no log: a
// request's later stage replacing a stored event, text that is not
// UTF-8. The replay then reads the index.
func TestIntakeSaysWhyNot(t *testing.T) {
	audit := filepath.Join("..", "sample-incidents", "persistence-after-kill", "audit", "k8s-audit.jsonl")
	lines := readLines(t, audit)
	var received, rest []string
	for _, l := range lines {
		if strings.Contains(l, `"stage":"RequestReceived"`) && len(received) == 0 {
			received = append(received, l)
			continue
		}
		rest = append(rest, l)
	}
	if len(received) == 0 {
		t.Fatal("no RequestReceived stage in the sample")
	}
	dir := t.TempDir()
	first, second := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeLines(t, first, received)
	writeLines(t, second, rest)
	ws := newWorkspace(t)
	if ok, why := ingestInto(t, ws, first); !ok {
		t.Fatalf("the first stage alone: %s", why)
	}
	if ok, why := ingestInto(t, ws, second); ok || !strings.Contains(why, "replaced a stored event") {
		t.Fatalf("the later stages: wrote %v (%q)", ok, why)
	}
	ws.ScanWith(context.Background(), FindingsOptions{})
	if from := ws.ReplayedFrom(); !strings.HasPrefix(from, "the index") {
		t.Fatalf("the replay read %q", from)
	}

	// a tool's name that is not UTF-8, in a ledger line
	ledger := readLines(t, filepath.Join("..", "sample-incidents", "credential-theft", "ledger.jsonl"))
	for i, l := range ledger {
		if bad := strings.Replace(l, `"tool":"`, "\"tool\":\"\xff", 1); bad != l {
			ledger[i] = bad
			break
		}
	}
	path := filepath.Join(dir, "ledger.jsonl")
	writeLines(t, path, ledger)
	ws2 := newWorkspace(t)
	ok, why := ingestInto(t, ws2, path)
	if ok || !strings.Contains(why, "not UTF-8") {
		t.Fatalf("a tool that is not UTF-8: wrote %v (%q)", ok, why)
	}
}

// Runs a crashed ingest left are removed by the next; an ingest that does
// not end leaves none.
func TestIntakeLeavesNoRuns(t *testing.T) {
	sample := filepath.Join("..", "sample-incidents", "credential-theft")
	ws := newWorkspace(t)
	dir := filepath.Join(ws.Dir, engineDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{intakeRun + "0", intakeRun + "3.12345"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("left by a crash"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if ok, why := ingestInto(t, ws, sample); !ok {
		t.Fatalf("after a crash's runs: %s", why)
	}
	noRuns(t, dir)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ws.Ingest(ctx, []string{filepath.Join("..", "sample-incidents", "egress-probe-exfil")}, IngestOptions{})
	if ok, why := ws.IngestWroteLog(); ok || why != "the ingest did not end" {
		t.Fatalf("an ingest cancelled: wrote %v (%q)", ok, why)
	}
	noRuns(t, dir)
}

func noRuns(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), intakeRun) {
			t.Errorf("%s left in %s", e.Name(), dir)
		}
	}
}
