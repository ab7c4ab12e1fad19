package incident

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
)

// On VictoriaLogs the replay log works as on the index: written by the
// replay that reads the store, read by the next (in this process and the
// next) with the store's answer; not read after more evidence, a Replace,
// or a crash that left a write's intent in the checkpoints file.
func TestReplayLogOnVictoriaLogs(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	dir := filepath.Join(t.TempDir(), "case")
	ws, err := Create(dir, Store(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ws.Close() }()
	if _, err := ws.Ingest(ctx, []string{filepath.Join("..", "sample-incidents", "credential-theft")}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	scan := func(what, wantFrom string) detect.Result {
		t.Helper()
		r, err := ws.ScanWith(ctx, FindingsOptions{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if from := ws.ReplayedFrom(); !strings.Contains(from, wantFrom) {
			t.Fatalf("%s: the replay read %q, want %q", what, from, wantFrom)
		}
		return r
	}
	fromStore := func(what string, got detect.Result) {
		t.Helper()
		direct, err := Scan(ctx, ws.store, FindingsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sameResult(t, what, got, direct)
	}
	engine := filepath.Join(dir, engineDir)
	want := scan("the first replay", "the replay log is written for the next")
	if len(want.Findings) == 0 {
		t.Fatal("the sample gives no findings: nothing to compare")
	}
	sameResult(t, "the second replay", scan("the second replay", "the replay log"), want)
	fromStore("the second replay", want)

	// another process: the checkpoints file says the same
	reopen := func() {
		t.Helper()
		if err := ws.Close(); err != nil {
			t.Fatal(err)
		}
		if ws, err = Create(dir); err != nil {
			t.Fatal(err)
		}
	}
	reopen()
	sameResult(t, "after a reopen", scan("after a reopen", "the replay log"), want)

	// a crash between a write and its new generation leaves the intent
	before, err := readReplayMeta(engine)
	if err != nil {
		t.Fatal(err)
	}
	statePath := filepath.Join(dir, "victorialogs-state.json")
	b, err := os.ReadFile(statePath)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil || doc["generation"] == nil {
		t.Fatalf("the checkpoints file holds no generation: %s (%v)", b, err)
	}
	doc["writing"] = "a-run-that-crashed"
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(statePath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	reopen()
	sameResult(t, "after a crash", scan("after a crash", "the index (the store does not say when its events last changed"), want)
	if after, err := readReplayMeta(engine); err != nil || after != before {
		t.Errorf("a replay with a write's intent standing wrote a log: %+v (%v), before %+v", after, err, before)
	}

	// more evidence: its write settles with a fresh generation
	if _, err := ws.Ingest(ctx, []string{filepath.Join("..", "sample-incidents", "egress-probe-exfil")}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	more := scan("after an ingest", "the index (the evidence changed since the replay log was written; the replay log is written for the next")
	fromStore("after an ingest", more)
	after, err := readReplayMeta(engine)
	if err != nil || after.Generation == before.Generation || after.Events <= before.Events {
		t.Errorf("after an ingest the log's meta is %+v (%v), before %+v", after, err, before)
	}
	sameResult(t, "after an ingest, then", scan("after an ingest, then", "the replay log"), more)

	// a Replace that changes nothing counted: only the generation tells
	var one evidence.Event
	_ = evidence.StoreSource{Store: ws.store}.Each(ctx, evidence.All(), func(ev evidence.Event) error {
		if one.ID == "" && ev.Kind == evidence.KindPrompt {
			one = ev
		}
		return nil
	})
	one.Message = "rewritten " + time.Now().String()
	keyBefore := ws.evidence()
	if n, err := ws.store.Replace(ctx, []evidence.Event{one}); n != 1 || err != nil {
		t.Fatalf("replace: %d, %v", n, err)
	}
	if ws.evidence() != keyBefore {
		t.Fatal("the Replace changed the counts: the test would not show the generation alone tells")
	}
	replaced := scan("after a replace", "the index (the evidence changed since the replay log was written")
	fromStore("after a replace", replaced)
	sameResult(t, "after a replace, then", scan("after a replace, then", "the replay log"), replaced)
}
