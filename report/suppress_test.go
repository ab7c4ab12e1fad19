package report_test

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
)

// The report lists a suppression with who, why and what it covers, marks
// the finding it covers, and says the same about containment, the
// kill-switch layers and what is open as without it.
func TestReportListsSuppressions(t *testing.T) {
	ctx := context.Background()
	ws := pakCase(t)
	before, err := report.Build(ctx, ws, report.At(reportGenerated))
	if err != nil {
		t.Fatal(err)
	}
	actor := journal.Actor{Name: "pdiaz", Via: journal.ViaCLI}
	s, err := ws.Suppress(ctx, actor, detect.Scope{Detector: "persistence-after-session-end", Agent: "agent-21"}, "a drill of the harness")
	if err != nil {
		t.Fatal(err)
	}
	after, err := report.Build(ctx, ws, report.At(reportGenerated))
	if err != nil {
		t.Fatal(err)
	}
	if len(after.Suppressions) != 1 || after.Suppressions[0].ID != s.ID || len(after.Suppressions[0].Findings) != 1 {
		t.Fatalf("suppressions: %+v", after.Suppressions)
	}
	if len(after.Findings) != len(before.Findings) {
		t.Errorf("%d findings, %d before", len(after.Findings), len(before.Findings))
	}
	if after.Front.Status != before.Front.Status || after.Summary.Containment != before.Summary.Containment ||
		!reflect.DeepEqual(after.Open, before.Open) || len(after.Layers) != len(before.Layers) {
		t.Errorf("the suppression changed the verdict: %q / %q, open %v / %v", before.Front.Status, after.Front.Status, before.Open, after.Open)
	}
	for i := range after.Layers {
		if after.Layers[i].Status != before.Layers[i].Status {
			t.Errorf("layer %s: %s, %s before", after.Layers[i].Title, after.Layers[i].Status, before.Layers[i].Status)
		}
	}
	var md bytes.Buffer
	if err := after.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| "+s.ID+" | pdiaz | ") || !strings.Contains(md.String(), "a drill of the harness") || !strings.Contains(md.String(), "(suppressed: "+s.ID+")") {
		t.Errorf("the markdown report lacks the suppression:\n%s", md.String())
	}
	said := false
	for _, d := range after.Front.Decisions {
		said = said || d.Text == "suppressed persistence-after-session-end of agent-21: a drill of the harness"
	}
	if !said {
		t.Errorf("the front page's decisions lack the suppression: %+v", after.Front.Decisions)
	}
	if !after.Journal.OK {
		t.Errorf("journal: %+v", after.Journal)
	}
}
