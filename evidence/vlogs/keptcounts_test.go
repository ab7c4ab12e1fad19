package vlogs_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/vlogs"
	"github.com/cordon-ir/cordon/evidence/vlogs/vlogstest"
)

// The counts a workspace keeps after its writes are read by the next open
// while the case is at their generation (the agents' first and last times
// with them), and asked of the server again once it is not: after another
// writer's records, and while a write a crash cut short stands.
func TestKeptCountsAreTheCaseCounts(t *testing.T) {
	ctx := context.Background()
	addr := vlogstest.Start(t)
	dir := t.TempDir()
	kept := filepath.Join(dir, "victorialogs-counts.json")
	st := open(t, addr, "kept", dir)
	if _, err := st.Index(ctx, contractEvents(t), nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	written := st.Counts()
	if _, err := os.Stat(kept); err != nil {
		t.Fatalf("no counts kept after an ingest: %v", err)
	}
	// the server's own answer, with no file to read
	fromServer := func() evidence.Counts {
		t.Helper()
		s, err := vlogs.Open(ctx, vlogs.Options{Addr: addr, Case: "kept", Dir: t.TempDir(), ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return s.Counts()
	}
	server := fromServer()
	if !server.AgentsKept || !reflect.DeepEqual(server.Fields, written.Fields) || server.Total != written.Total {
		t.Fatalf("the server's counts differ from those kept at ingest:\n%+v\n%+v", server, written)
	}
	for name, a := range written.Agents {
		s := server.Agents[name]
		wsp, wok := a.Span()
		ssp, sok := s.Span()
		if s == nil || s.N != a.N || s.Denied != a.Denied || s.Contested != a.Contested || sok && (!wok || wsp != ssp) || name != "" && !sok {
			t.Errorf("agent %q: server %+v, kept at ingest %+v", name, s, a)
		}
	}
	reopen := func() evidence.Counts {
		t.Helper()
		s, err := vlogs.Open(ctx, vlogs.Options{Addr: addr, Case: "kept", Dir: dir, ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		return s.Counts()
	}
	if got := reopen(); !reflect.DeepEqual(got, written) {
		t.Errorf("reopened, the counts are\n%+v\nwant those kept\n%+v", got, written)
	}
	// the file is what the open read: a mark put in it shows
	b, err := os.ReadFile(kept)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["counts"].(map[string]any)["cut"] = 4242
	marked, _ := json.Marshal(doc)
	if err := os.WriteFile(kept, marked, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := reopen(); got.Cut != 4242 {
		t.Fatalf("the open did not read the kept counts (cut %d)", got.Cut)
	}
	// another writer's record: the generation moves, the file is not read
	other := open(t, addr, "kept", t.TempDir())
	late := genEvent("another-writers-record", written.Last.Add(time.Hour))
	if _, err := other.Index(ctx, []evidence.Event{late}, nil); err != nil {
		t.Fatal(err)
	}
	if err := other.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got := reopen()
	if got.Cut == 4242 || got.Total != written.Total+1 || !got.Last.Equal(late.Time) {
		t.Errorf("after another writer's record the open read %d events to %s (cut %d), want %d to %s from the server",
			got.Total, got.Last, got.Cut, written.Total+1, late.Time)
	}
	if a := got.Agents[late.Agent]; a == nil {
		t.Error("the server's counts keep no agents")
	} else if sp, ok := a.Span(); !ok || !sp.Last.Equal(late.Time) {
		t.Errorf("%s's span from the server: %v %v", late.Agent, sp, ok)
	}
	// a write left in flight (a crash): the intent stands, nothing kept is read
	st = open(t, addr, "kept", dir)
	p, err := st.Prepare([]evidence.Event{genEvent("inflight", late.Time.Add(time.Second))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.IndexPrepared(ctx, p, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept, marked, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := reopen(); got.Cut == 4242 {
		t.Error("kept counts read while a write's intent stands")
	}
}
