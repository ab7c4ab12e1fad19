package detect_test

import (
	"context"
	"encoding/json"
	"sort"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/bench"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// A pass asked for its findings along the way, as a following console's
// rounds ask, ends with a replay's findings asked once, on the bench
// generator's incident: there the agents' last episodes grow at every
// round (an open stretch's calls, one more mismatch) and are taken on
// from what gathered them, which the samples are too short to show.
func TestFindingsAskedAlongEqualAReplays(t *testing.T) {
	dir := t.TempDir()
	gen, err := bench.Generate(dir, 40000)
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
	attribution.AttributeAll(evs)
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	eng := detect.Engine{Rules: rules}
	src := detect.NewMemSource(evs)
	along, err := eng.Start(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		if err := along.Add(&evs[i]); err != nil {
			t.Fatal(err)
		}
		if i%97 == 0 {
			along.Findings()
		}
	}
	once, err := eng.Start(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := once.Replay(ctx, src); err != nil {
		t.Fatal(err)
	}
	got, want := along.Findings(), once.Findings()
	if len(want) == 0 {
		t.Fatal("the generated incident has no findings")
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		for i := range min(len(got), len(want)) {
			if a, b := got[i], want[i]; a.ID != b.ID || len(a.Events) != len(b.Events) || a.Explanation != b.Explanation {
				t.Fatalf("finding %d asked along the way: %s %q (%d events); a replay's: %s %q (%d events)",
					i, a.ID, a.Explanation, len(a.Events), b.ID, b.Explanation, len(b.Events))
			}
		}
		t.Fatalf("%d findings asked along the way differ from a replay's %d", len(got), len(want))
	}
}

// rejected keeps the lines ingest refused.
type rejected []parse.Reject

func (r *rejected) Add(rs []parse.Reject) error {
	*r = append(*r, rs...)
	return nil
}
