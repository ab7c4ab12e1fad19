package incident

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A workspace opened later reads the kept result, not the index: a title
// changed in what was kept shows; Recompute runs the detectors again; a
// result kept for other evidence is not read.
func TestKeptResultIsRead(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "inc")
	ws, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Ingest(ctx, []string{filepath.Join("..", "sample-incidents", "persistence-after-kill")}, IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	r, err := ws.Result(ctx)
	if err != nil || len(r.Findings) == 0 {
		t.Fatalf("%d findings, %v", len(r.Findings), err)
	}
	title := r.Findings[0].Title
	meta, ok := ws.resultMeta()
	if !ok {
		t.Fatal("a writable workspace cannot keep its result")
	}
	changed := r
	changed.Findings = append(r.Findings[:0:0], r.Findings...)
	changed.Findings[0].Title = "KEPT"
	if err := ws.keepScan(meta, changed); err != nil {
		t.Fatal(err)
	}
	ws.Close()

	ro, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	got, err := ro.Result(ctx)
	if err != nil || got.Findings[0].Title != "KEPT" || ro.DetectorRuns() != 0 {
		t.Errorf("read %q after %d runs (%v), want the kept result", got.Findings[0].Title, ro.DetectorRuns(), err)
	}
	if _, ok := ro.keptScan(resultMeta{Engine: meta.Engine, Evidence: "other evidence"}); ok {
		t.Error("a result kept for other evidence was read")
	}
	ro.Recompute()
	if got, err := ro.Result(ctx); err != nil || got.Findings[0].Title != title || ro.DetectorRuns() != 1 {
		t.Errorf("recomputed %q after %d runs (%v)", got.Findings[0].Title, ro.DetectorRuns(), err)
	}
}

// A kept result that is not the evidence's says why, the rules before the
// evidence.
func TestStaleWhy(t *testing.T) {
	now := resultMeta{Engine: engineVersion, Model: capabilityModel, Mapping: 5, Evidence: "e2", Rules: "r2", Redactor: "k"}
	for _, c := range []struct {
		kept resultMeta
		want string
	}{
		{resultMeta{Engine: "scan/1", Model: capabilityModel, Mapping: 5, Evidence: "e2", Rules: "r2", Redactor: "k"}, "another cordon version"},
		{resultMeta{Engine: engineVersion, Model: capabilityModel, Mapping: 5, Evidence: "e1", Rules: "r1", Redactor: "k"}, "the rules changed"},
		{resultMeta{Engine: engineVersion, Model: capabilityModel, Mapping: 5, Evidence: "e1", Rules: "r2", Redactor: "k"}, "the evidence changed"},
	} {
		if got := staleWhy(c.kept, now); !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", c.kept, got, c.want)
		}
	}
}
