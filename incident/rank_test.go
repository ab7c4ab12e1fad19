package incident_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/sample-incidents/truth"
)

// On every sample the agents the ground truth blames rank first, and no
// benign agent ranks above one of them.
func TestCulpritsRankFirst(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "truth.yaml"))
	if err != nil || len(paths) < 5 {
		t.Fatalf("truth files: %v %v", paths, err)
	}
	for _, p := range paths {
		name := filepath.Base(filepath.Dir(p))
		t.Run(name, func(t *testing.T) {
			tr, err := truth.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			ws := incidenttest.New(t, filepath.Dir(p))
			ranks, err := ws.AgentRanking(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var culprits []string
			for _, f := range tr.Findings {
				if !slices.Contains(culprits, f.Agent) {
					culprits = append(culprits, f.Agent)
				}
			}
			for i, r := range ranks {
				t.Logf("%d %s: %s", r.Rank, r.Agent, r.Reason)
				if i < len(culprits) && !slices.Contains(culprits, r.Agent) {
					t.Errorf("rank %d is %s, not one of the culprits %v", r.Rank, r.Agent, culprits)
				}
			}
			if len(ranks) < len(culprits)+len(tr.Benign) {
				t.Errorf("%d agents ranked, want the %d culprits and %d benign agents", len(ranks), len(culprits), len(tr.Benign))
			}
			for _, b := range tr.Benign {
				for _, r := range ranks {
					if r.Agent == b && r.Open {
						t.Errorf("benign %s is open: %s", b, r.Reason)
					}
				}
			}
		})
	}
}
