package incident_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

func TestMarksToggleAndPersist(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, journal.DirMode) // as a workspace is: the journal refuses a shared one
	m, err := incident.OpenMarks(dir)
	if err != nil {
		t.Fatal(err)
	}
	who := journal.Actor{Name: "oncall", Via: journal.ViaConsole}
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	a := evidence.Event{ID: "b", Time: t0.Add(time.Minute), Kind: "tool_call", Agent: "agent-7", Message: "curl"}
	b := evidence.Event{ID: "a", Time: t0, Kind: "proc_exec"}
	for _, ev := range []evidence.Event{a, b} {
		if on, err := m.Toggle(context.Background(), who, ev); err != nil || !on {
			t.Fatalf("toggle %s: %v %v", ev.ID, on, err)
		}
	}
	again, err := incident.OpenMarks(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := again.List()
	if len(l) != 2 || l[0].ID != "a" || l[1].ID != "b" || l[1].Summary != "agent-7 tool_call: curl" {
		t.Fatalf("reloaded marks: %+v", l)
	}
	if k, ok := again.Next(evidence.Cursor{Time: t0, ID: "a"}); !ok || k.ID != "b" {
		t.Errorf("next after a: %+v", k)
	}
	if k, ok := again.Next(evidence.Cursor{Time: t0.Add(time.Hour)}); !ok || k.ID != "a" {
		t.Errorf("next wraps to the first: %+v", k)
	}
	if on, err := again.Toggle(context.Background(), journal.Actor{Name: "guest", Via: journal.ViaSSH, Observer: true}, b); !errors.Is(err, journal.ErrReadOnly) || on {
		t.Fatalf("an observer toggled a mark: %v %v", on, err)
	}
	if on, err := again.Toggle(context.Background(), who, a); err != nil || on {
		t.Fatalf("untoggle: %v %v", on, err)
	}
	if l := again.List(); len(l) != 1 || l[0].ID != "a" {
		t.Errorf("after untoggle: %+v", l)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "marks.json?*")); len(left) != 0 {
		t.Errorf("atomic write left files behind: %v", left)
	}
	j, _ := journal.Open(dir)
	entries, err := j.Entries()
	if err != nil || len(entries) != 3 {
		t.Fatalf("journal: %d entries, %v", len(entries), err)
	}
	for i, want := range []journal.EntryType{journal.EntryMark, journal.EntryMark, journal.EntryUnmark} {
		if entries[i].Type != want || entries[i].Actor.Name != "oncall" {
			t.Errorf("journal entry %d: %s by %s, want %s by oncall", i+1, entries[i].Type, entries[i].Actor.Name, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "marks.json")); err != nil {
		t.Error(err)
	}
}

func TestBackgroundIngest(t *testing.T) {
	ws, err := incident.Create(filepath.Join(t.TempDir(), "w"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	run := ws.StartIngest(context.Background(), []string{incidenttest.ConsoleFixture()}, incident.IngestOptions{}, false)
	var last incident.IngestUpdate
	for {
		u, ok := run.Next(context.Background())
		last = u
		if !ok || u.Done {
			break
		}
	}
	if !last.Done || last.Err != nil || len(last.Results) != 4 {
		t.Fatalf("final update %+v", last)
	}
	if n := ws.EvidenceStore().Counts().Total; n != 74 {
		t.Errorf("indexed %d events, want 74", n)
	}
}

func TestDirFor(t *testing.T) {
	got := incident.DirFor("/state", []string{"/evidence/egress probe;exfil/"})
	if !strings.HasPrefix(got, "/state/cordon/incidents/egress-probe-exfil-") || len(filepath.Base(got)) != len("egress-probe-exfil-")+8 {
		t.Errorf("DirFor = %q", got)
	}
	if again := incident.DirFor("/state", []string{"/evidence/egress probe;exfil"}); again != got {
		t.Errorf("the same input names another workspace: %q, %q", again, got)
	}
	if other := incident.DirFor("/state", []string{"/other/egress probe;exfil"}); other == got {
		t.Errorf("other inputs of the same name share a workspace: %q", other)
	}
	if got := incident.DirFor("/s", []string{"-"}); !strings.HasPrefix(got, "/s/cordon/incidents/incident-") {
		t.Errorf("stdin: %q", got)
	}
}

// TestBackgroundIngestFollows: a console opened on files keeps reading the
// lines appended to them after the first pass.
func TestBackgroundIngestFollows(t *testing.T) {
	line := func(i int) string {
		return fmt.Sprintf(`{"v":1,"ts":"2026-07-21T10:00:%02dZ","type":"summary","agent":"agent-7","text":"step %d"}`+"\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(path, []byte(line(0)+line(1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := incident.Create(filepath.Join(t.TempDir(), "w"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := ws.StartIngest(ctx, []string{path}, incident.IngestOptions{}, true)
	waitFor := func(what string, ok func(incident.IngestUpdate) bool) incident.IngestUpdate {
		t.Helper()
		for {
			u, more := run.Next(ctx)
			if ok(u) {
				return u
			}
			if !more || u.Done {
				t.Fatalf("ingest ended before %s: %+v", what, u)
			}
		}
	}
	u := waitFor("the first pass", func(u incident.IngestUpdate) bool { return u.Following })
	if u.Added != 2 || u.Done {
		t.Fatalf("after the first pass: %+v", u)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line(2) + line(3) + line(4))
	f.Close()
	waitFor("the appended lines", func(u incident.IngestUpdate) bool { return u.Added == 5 })
	if n := ws.EvidenceStore().Counts().Total; n != 5 {
		t.Errorf("indexed %d events, want 5", n)
	}
	if u := run.Stop(); !u.Done || u.Err != nil || u.Added != 5 {
		t.Errorf("after stop: %+v", u)
	}
}

// TestFollowingIngestCountsEachFilesEvents: each round of a following
// ingest reads only what was appended, and the results are the sum of
// the rounds per file, not the last round's zeros (issue 33: :files said
// 0 events of every file).
func TestFollowingIngestCountsEachFilesEvents(t *testing.T) {
	line := func(i int) string {
		return fmt.Sprintf(`{"v":1,"ts":"2026-07-21T10:00:%02dZ","type":"summary","agent":"agent-7","text":"step %d"}`+"\n", i, i)
	}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(path, []byte(line(0)+line(1)+line(2)), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := incident.Create(filepath.Join(t.TempDir(), "w"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := ws.StartIngest(ctx, []string{path}, incident.IngestOptions{}, true)
	var u incident.IngestUpdate
	for more := true; more && u.Rounds < 2; {
		u, more = run.Next(ctx)
	}
	if u.Rounds < 2 || len(u.Results) != 1 || u.Results[0].Events != 3 || u.Results[0].New != 3 {
		t.Fatalf("after a second round that read nothing new: %+v", u)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(line(3))
	f.Close()
	for more := true; more && u.Added < 4; {
		u, more = run.Next(ctx)
	}
	if u = run.Stop(); len(u.Results) != 1 || u.Results[0].Events != 4 || u.Results[0].New != 4 {
		t.Errorf("after a line appended: %+v", u.Results)
	}
}

// TestIngestWatchesEachSeeEveryChange: several consoles (one per SSH
// session) follow one ingest; each reader gets the updates, the last one
// included, not just whichever reader woke first.
func TestIngestWatchesEachSeeEveryChange(t *testing.T) {
	ws, err := incident.Create(filepath.Join(t.TempDir(), "w"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	run := ws.StartIngest(context.Background(), []string{incidenttest.ConsoleFixture()}, incident.IngestOptions{}, false)
	watches := []*incident.IngestWatch{run.Watch(), run.Watch(), run.Watch()}
	done := make(chan incident.IngestUpdate, len(watches))
	for _, w := range watches {
		go func(w *incident.IngestWatch) {
			var last incident.IngestUpdate
			for {
				u, ok := w.Next(context.Background())
				if !ok {
					done <- last
					return
				}
				last = u
			}
		}(w)
	}
	for range watches {
		if u := <-done; !u.Done || u.Err != nil || len(u.Results) != 4 {
			t.Errorf("a reader's last update: %+v", u)
		}
	}
}
