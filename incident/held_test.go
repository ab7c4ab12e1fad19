package incident

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
)

// While a follow holds the index, another process reads the evidence
// through it: the same searches, pages, events and facets as the index
// gives, and a case with its sessions. Once the follow ends, nothing is
// served and a held workspace says why.
func TestHeldReadsThroughTheFollower(t *testing.T) {
	sample := filepath.Join("..", "sample-incidents", "credential-theft")
	w, ctx, cancel, opt, _ := followed(t)
	defer w.Close()
	defer cancel()
	rounds := 0
	err := w.Follow(ctx, []string{filepath.Join(sample, "ledger.jsonl"), filepath.Join(sample, "proxy")}, opt, time.Millisecond, func([]ingest.FileResult) {
		if rounds++; rounds > 1 {
			cancel()
			return
		}
		h, err := OpenHeld(w.Dir)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if why := h.HeldReads(); why != "" {
			t.Fatalf("held: no reads: %s", why)
		}
		q := evidence.And(evidence.Term("agent", "agent-12"), evidence.Not(evidence.Term("kind", evidence.KindSessionStart)).Fold())
		req := evidence.Request{Query: q, Limit: 1000}
		want, err := w.store.Search(ctx, req)
		if err != nil || want.Total == 0 {
			t.Fatalf("the index: %v, %+v", err, want)
		}
		got, err := h.Search(ctx, req)
		if err != nil || got.Total != want.Total || len(got.Events) != len(want.Events) || got.Events[0].ID != want.Events[0].ID {
			t.Errorf("held search: %v, %d events, want %d", err, got.Total, want.Total)
		}
		if ev, err := h.Get(ctx, want.Events[0].ID); err != nil || ev.Raw != want.Events[0].Raw {
			t.Errorf("held get: %v", err)
		}
		if _, err := h.Get(ctx, "no-such-event"); !errors.Is(err, evidence.ErrNotFound) {
			t.Errorf("held get of no event: %v, want ErrNotFound", err)
		}
		if p, err := h.Page(ctx, evidence.PageRequest{Query: q, Limit: 5}); err != nil || len(p.Events) != 5 || p.Events[0].ID != want.Events[0].ID {
			t.Errorf("held page: %v", err)
		}
		if c := h.store.Counts(); c.Total != w.store.Counts().Total {
			t.Errorf("held counts: %d, want %d", c.Total, w.store.Counts().Total)
		}
		s, err := h.State()
		if err != nil {
			t.Fatal(err)
		}
		s.Subject = []string{"agent-12"}
		cs, err := h.Case(ctx, s)
		if err != nil || len(cs.Sessions) == 0 || cs.First.IsZero() {
			t.Errorf("held case: %v, %d sessions, first %s", err, len(cs.Sessions), cs.First)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rounds < 2 {
		t.Fatalf("%d rounds", rounds)
	}
	if _, err := os.Stat(filepath.Join(w.Dir, readsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the follow ended and left %s: %v", readsFile, err)
	}
	h, err := OpenHeld(w.Dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.HeldReads() == "" {
		t.Error("no follower, and a held workspace says it reads through one")
	}
	if _, err := h.Search(context.Background(), evidence.Request{}); !errors.Is(err, ErrHeld) {
		t.Errorf("a search with no follower: %v, want ErrHeld", err)
	}
}
