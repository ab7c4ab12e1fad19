package detect_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/bench/benchtest"
	"github.com/cordon-ir/cordon/detect"
)

// A pass asked for its findings along the way, as a following console's
// rounds ask, ends with a replay's findings asked once, on the bench
// generator's incident: there the agents' last episodes grow at every
// round (an open stretch's calls, one more mismatch) and are taken on
// from what gathered them, which the samples are too short to show.
func TestFindingsAskedAlongEqualAReplays(t *testing.T) {
	ctx := context.Background()
	evs := benchtest.GeneratedEvents(t, 40000)
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
