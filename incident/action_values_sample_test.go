package incident_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/playbook"
)

// TestSampleValuesFitTheDefaultPatterns: the default patterns of the
// action variables admit every value the sample incidents' sessions
// hold, so they refuse the hostile without refusing the ordinary.
func TestSampleValuesFitTheDefaultPatterns(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "truth.yaml"))
	if err != nil || len(dirs) < 4 {
		t.Fatalf("samples: %v %v", dirs, err)
	}
	c := &incident.Config{Actions: map[string]incident.ActionConfig{}}
	for _, v := range playbook.Variables() {
		if !playbook.IsTimeVariable(v) {
			c.Actions[v] = incident.ActionConfig{Run: "echo {{" + v + "}}"}
		}
	}
	for _, p := range dirs {
		ws := incidenttest.New(t, filepath.Dir(p))
		hits, err := ws.EvidenceStore().Search(context.Background(), evidence.Request{Query: evidence.Term("kind", evidence.KindSessionStart), Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range hits.Events {
			cs := incident.Case{Subject: []string{s.Agent}, Sessions: []evidence.Event{s}}
			for name := range c.Actions {
				if _, err := c.PlanAction(name, cs); err != nil && !isNoValue(err) {
					t.Errorf("%s: %v", filepath.Base(filepath.Dir(p)), err)
				}
			}
		}
	}
}

func isNoValue(err error) bool {
	return err != nil && strings.Contains(err.Error(), "has no value for this case")
}
