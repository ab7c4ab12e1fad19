// Package benchtest gives tests the bench generator's incident as events.
package benchtest

import (
	"context"
	"sort"
	"testing"

	"github.com/cordon-ir/cordon/bench"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// GeneratedEvents are the bench generator's n records as ingest reads
// them, in the engine's order (detect.Before): its agents' episodes and
// capability sets grow with n, as a long-lived agent's do. The lines it
// cuts short on purpose are the only ones ingest may reject.
func GeneratedEvents(t testing.TB, n int) []evidence.Event {
	t.Helper()
	dir := t.TempDir()
	gen, err := bench.Generate(dir, n, 0)
	if err != nil {
		t.Fatal(err)
	}
	files, err := ingest.Expand([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := evidence.NewMemStore()
	var rejects rejected
	if _, err := ingest.Run(ctx, files, ingest.Options{Store: st, Rejects: &rejects}); err != nil {
		t.Fatal(err)
	}
	if len(rejects) != gen.Broken {
		t.Fatalf("%d lines rejected, the generator cut %d short: %v", len(rejects), gen.Broken, rejects)
	}
	h, err := st.Search(ctx, evidence.Request{Limit: 1 << 22})
	if err != nil {
		t.Fatal(err)
	}
	evs := h.Events
	sort.SliceStable(evs, func(i, j int) bool { return detect.Before(&evs[i], &evs[j]) })
	return evs
}

// rejected keeps the lines ingest refused.
type rejected []parse.Reject

func (r *rejected) Add(rs []parse.Reject) error {
	*r = append(*r, rs...)
	return nil
}
