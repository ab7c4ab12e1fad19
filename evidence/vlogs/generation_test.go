package vlogs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/vlogs"
	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
)

func generation(t *testing.T, st *vlogs.Store) string {
	t.Helper()
	g, err := st.Generation()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func genEvent(id string, at time.Time) evidence.Event {
	return evidence.Event{ID: id, Time: at, Source: evidence.SourceSensor, Kind: evidence.KindProcExec, Agent: "agent-1", Message: "run " + id}
}

// The generation changes with every write of events (a batch that stores
// any, a Replace), not with a batch that stores nothing new, survives a
// reopen, and moves when records reach the case some other way.
func TestGenerationFollowsWrites(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	dir := t.TempDir()
	st := open(t, addr, "gen", dir)
	if g := generation(t, st); g != "" {
		t.Fatalf("a case nothing was written to has generation %q", g)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	a, b := genEvent("a", t0), genEvent("b", t0.Add(time.Second))
	if _, err := st.Index(ctx, []evidence.Event{a}, map[string][]byte{"k": []byte("1")}); err != nil {
		t.Fatal(err)
	}
	g1 := generation(t, st)
	if g1 == "" {
		t.Fatal("no generation after a write")
	}
	if _, err := st.Index(ctx, []evidence.Event{a}, map[string][]byte{"k": []byte("2")}); err != nil {
		t.Fatal(err)
	}
	if g := generation(t, st); g != g1 {
		t.Errorf("an Index that stored nothing new moved the generation from %q to %q", g1, g)
	}
	seen := map[string]bool{g1: true}
	fresh := func(what string) string {
		t.Helper()
		g := generation(t, st)
		if g == "" || seen[g] {
			t.Fatalf("after %s the generation is %q, seen before or empty", what, g)
		}
		seen[g] = true
		return g
	}
	if _, err := st.Index(ctx, []evidence.Event{b}, nil); err != nil {
		t.Fatal(err)
	}
	fresh("an Index of a new event")
	a.Agent = "agent-2"
	if n, err := st.Replace(ctx, []evidence.Event{a}); n != 1 || err != nil {
		t.Fatalf("replace: %d, %v", n, err)
	}
	g := fresh("a Replace")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := vlogs.Open(ctx, vlogs.Options{Addr: addr, Case: "gen", Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if again := generation(t, st); again != g {
		t.Errorf("after a reopen the generation is %q, want %q", again, g)
	}
	// another workspace writing to the same case: this one's checkpoints
	// file does not change, the records the server holds do
	other := open(t, addr, "gen", t.TempDir())
	if _, err := other.Index(ctx, []evidence.Event{genEvent("c", t0.Add(2*time.Second))}, nil); err != nil {
		t.Fatal(err)
	}
	fresh("records another writer added")
}

// While a write is under way the generation is "", in this process and
// in another that opens the folder; a crash leaves it so, past a resumed
// run that stores nothing new, until a later write is settled.
func TestGenerationIsEmptyWhileAWriteIsUnderWay(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	dir := t.TempDir()
	st := open(t, addr, "intent", dir)
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	if _, err := st.Index(ctx, []evidence.Event{genEvent("a", t0)}, nil); err != nil {
		t.Fatal(err)
	}
	before := generation(t, st)
	// a second batch is sent and left in flight (the first settled at once)
	p, err := st.Prepare([]evidence.Event{genEvent("b", t0.Add(time.Second))})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := st.IndexPrepared(ctx, p, nil, nil, nil); n != 1 || err != nil {
		t.Fatalf("IndexPrepared: %d, %v", n, err)
	}
	if g := generation(t, st); g != "" {
		t.Errorf("with a batch in flight the generation is %q, want \"\"", g)
	}
	// the process dies here: the next opens the folder and finds the intent
	crashed := open(t, addr, "intent", dir)
	if g := generation(t, crashed); g != "" {
		t.Errorf("after a crash with a batch in flight the generation is %q (before it, %q), want \"\"", g, before)
	}
	b, err := os.ReadFile(filepath.Join(dir, "victorialogs-state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil || doc["writing"] == nil || doc["writing"] == "" {
		t.Fatalf("the checkpoints file holds no intent: %s (%v)", b, err)
	}
	// the resumed run sends the batch again: it is held, nothing is
	// written (the server makes what it took searchable within a second
	// on its own; the test asks it to at once)
	resp, err := http.Get("http://" + strings.TrimPrefix(addr, vlogs.Scheme) + "/internal/force_flush")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n, err := crashed.Index(ctx, []evidence.Event{genEvent("b", t0.Add(time.Second))}, nil); n != 0 || err != nil {
		t.Fatalf("the resumed batch: %d stored, %v", n, err)
	}
	if g := generation(t, crashed); g != "" {
		t.Errorf("a run that wrote nothing ended a crashed run's intent: %q", g)
	}
	if _, err := crashed.Index(ctx, []evidence.Event{genEvent("c", t0.Add(2*time.Second))}, nil); err != nil {
		t.Fatal(err)
	}
	if g := generation(t, crashed); g == "" || g == before {
		t.Errorf("after a later write settled the generation is %q (before the crash, %q)", g, before)
	}
}
