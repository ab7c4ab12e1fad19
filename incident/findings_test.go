package incident_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// Findings work on a workspace whose ingest did not attribute proxy and
// sensor events: the use case attributes them as the detectors read.
func TestFindingsOnAWorkspace(t *testing.T) {
	ws := incidenttest.New(t, filepath.Join("..", "sample-incidents", "credential-theft"))
	ctx := context.Background()
	all, err := incident.RunDetectors(ctx, ws.EvidenceStore(), incident.FindingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var misuse *detect.Finding
	for i, f := range all {
		if f.Agent != "agent-12" {
			t.Errorf("finding about %q: %s %s", f.Agent, f.Detector, f.Explanation)
		}
		if f.Detector == "credential-misuse" {
			misuse = &all[i]
		}
	}
	if misuse == nil || !strings.Contains(misuse.Explanation, "issued to agent-9") || len(misuse.Events) < 40 {
		t.Fatalf("no credential misuse charged to agent-12: %+v", misuse)
	}
	ev, err := ws.EvidenceStore().Get(ctx, misuse.Events[len(misuse.Events)-1])
	if err != nil || ev.User != "px-s228" {
		t.Errorf("last evidence of the misuse: %+v %v", ev, err)
	}

	high, err := incident.RunDetectors(ctx, ws.EvidenceStore(), incident.FindingsOptions{MinSeverity: "high"})
	if err != nil {
		t.Fatal(err)
	}
	if len(high) == 0 || len(high) >= len(all) {
		t.Errorf("%d findings of high or above, of %d", len(high), len(all))
	}
	for _, f := range high {
		if detect.SeverityRank(f.Severity) < detect.SeverityRank("high") {
			t.Errorf("%s is %s", f.Detector, f.Severity)
		}
	}
	none, err := incident.RunDetectors(ctx, ws.EvidenceStore(), incident.FindingsOptions{Agent: "agent-9"})
	if err != nil || len(none) != 0 {
		t.Errorf("agent-9 (the victim): %d findings, %v", len(none), err)
	}
	if _, err := incident.RunDetectors(ctx, ws.EvidenceStore(), incident.FindingsOptions{MinSeverity: "severe"}); err == nil {
		t.Error("an unknown severity was accepted")
	}
}

// Attributing as the detectors read from the store gives the findings of
// attributing every event first and reading from memory.
func TestFindingsFromStoreMatchMemory(t *testing.T) {
	ws := incidenttest.New(t, filepath.Join("..", "sample-incidents", "egress-probe-exfil"))
	ctx := context.Background()
	got, err := incident.RunDetectors(ctx, ws.EvidenceStore(), incident.FindingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var evs []evidence.Event
	evidence.StoreSource{Store: ws.EvidenceStore()}.Each(ctx, evidence.MustParse(""), func(ev evidence.Event) error {
		evs = append(evs, ev)
		return nil
	})
	attribution.AttributeAll(evs)
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	want, err := (&detect.Engine{Rules: rules}).Run(ctx, detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) < 5 {
		t.Fatalf("%d findings from the store, %d from memory", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].Explanation != want[i].Explanation {
			t.Errorf("store %s %q\nmemory %s %q", got[i].Detector, got[i].Explanation, want[i].Detector, want[i].Explanation)
		}
	}
}

// TestWorkspaceFindingsKeptUntilTheEvidenceChanges: the detectors run once
// for a case's subject, each check and the report, and again after an
// ingest adds events.
func TestWorkspaceFindingsKeptUntilTheEvidenceChanges(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/egress-probe-exfil/ledger.jsonl")
	ctx := context.Background()
	a, err := ws.CachedFindings(ctx)
	if err != nil || len(a) == 0 {
		t.Fatalf("findings %d, %v", len(a), err)
	}
	b, _ := ws.CachedFindings(ctx)
	if &a[0] != &b[0] {
		t.Error("the detectors ran again on unchanged evidence")
	}
	if _, err := ws.Ingest(ctx, []string{"../sample-incidents/egress-probe-exfil/proxy"}, incident.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	c, _ := ws.CachedFindings(ctx)
	if len(c) > 0 && &c[0] == &a[0] {
		t.Error("findings kept after an ingest changed the evidence")
	}
}
