package incident

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
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

// A held workspace reads the follow's answer once, as it opens: one the
// follower kept while it held events for order is read (and says how
// many), and one the follower renames over it afterwards does not
// replace it half-way, as a second read of the file would. Running the
// detectors again over a held index is refused.
func TestHeldReadsTheAnswerItOpened(t *testing.T) {
	ws, dir, r, err := keptSample(t)
	if err != nil || len(r.Findings) < 2 {
		t.Fatalf("%d findings, %v", len(r.Findings), err)
	}
	defer ws.Close()
	meta, ok := ws.resultMeta()
	if !ok {
		t.Fatal("the sample's result cannot be kept")
	}
	// as a follow keeps it while it holds 3 events for order
	meta.HeldForOrder = 3
	if err := ws.keepScan(meta, r); err != nil {
		t.Fatal(err)
	}
	h, err := OpenHeld(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	// the follower's next round, renamed over it
	next := meta
	next.Evidence, next.HeldForOrder = "a later round's evidence", 0
	if err := ws.keepScan(next, detect.Result{Findings: r.Findings[:1], Capabilities: r.Capabilities, Coverage: r.Coverage}); err != nil {
		t.Fatal(err)
	}
	fs, err := h.CachedFindings(context.Background())
	if err != nil || len(fs) != len(r.Findings) {
		t.Fatalf("held: %d findings (%v), want the %d of the answer it opened", len(fs), err, len(r.Findings))
	}
	if h.HeldForOrder() != 3 || h.DetectorRuns() != 0 {
		t.Errorf("held: %d held for order, %d runs; want 3 and none", h.HeldForOrder(), h.DetectorRuns())
	}
	h.Recompute()
	if _, err := h.CachedFindings(context.Background()); !errors.Is(err, ErrHeld) {
		t.Errorf("held: the detectors run again: %v, want ErrHeld", err)
	}
}
