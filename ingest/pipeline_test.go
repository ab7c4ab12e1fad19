package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// failingStore fails the n-th Index call. It hides the Preparer of the
// store it wraps, so batches take the plain Index path.
type failingStore struct {
	evidence.Store
	calls, failAt int
}

var errDiskFull = errors.New("disk full")

func (f *failingStore) Index(ctx context.Context, evs []evidence.Event, state map[string][]byte) (int, error) {
	f.calls++
	if f.calls == f.failAt {
		return 0, errDiskFull
	}
	return f.Store.Index(ctx, evs, state)
}

func TestStoreFailureStopsTheRunAndAResumeCountsOnce(t *testing.T) {
	st := newStore(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	writeLines(t, a, 0, 1000)
	writeLines(t, b, 1000, 1500)
	rej := &memRejects{}
	fs := &failingStore{Store: st, failAt: 5}
	_, err := Run(context.Background(), []string{a, b}, Options{Store: fs, Rejects: rej, BatchSize: 64})
	if !errors.Is(err, errStore) {
		t.Fatalf("run on a failing store: err %v, want a store error", err)
	}
	if got := st.Counts().Total; got != 4*64 {
		t.Fatalf("%d events landed before the failure, want the 4 batches before it", got)
	}
	res := ingestOnce(t, st, rej, a, b)
	if got := st.Counts().Total; got != 1500 {
		t.Fatalf("after resuming: %d events, want 1500", got)
	}
	if res[0].New != 1000-4*64 || res[1].New != 500 {
		t.Errorf("resume added %d and %d, want %d and 500", res[0].New, res[1].New, 1000-4*64)
	}
}

// TestPreparedAndPlainIndexAgree ingests the same files through the
// prepare-ahead pipeline and through plain Index calls.
func TestPreparedAndPlainIndexAgree(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	writeLines(t, a, 0, 700, "{broken\n")
	piped, plain := newStore(t), newStore(t)
	if _, ok := piped.(evidence.Preparer); !ok {
		t.Fatal("the Bleve store no longer prepares batches ahead: the pipeline has nothing to overlap")
	}
	r1 := ingestOnce(t, piped, &memRejects{}, a)
	r2 := ingestOnce(t, &failingStore{Store: plain}, &memRejects{}, a)
	if r1[0].New != 700 || r2[0].New != 700 || r1[0].Rejects != 1 || r2[0].Rejects != 1 {
		t.Fatalf("prepared %+v, plain %+v", r1[0], r2[0])
	}
	for _, q := range []string{"agent:agent-1", "echo", "+kind:tool_call +agent:agent-3"} {
		h1, err1 := piped.Search(context.Background(), evidence.Request{Query: evidence.MustParse(q)})
		h2, err2 := plain.Search(context.Background(), evidence.Request{Query: evidence.MustParse(q)})
		if err1 != nil || err2 != nil || h1.Total != h2.Total || h1.Total == 0 {
			t.Errorf("%q: prepared %v (%v), plain %v (%v)", q, h1, err1, h2, err2)
		}
	}
}
