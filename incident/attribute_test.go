package incident_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

func agentsOf(t *testing.T, ws *incident.Workspace) map[string]int64 {
	t.Helper()
	return ws.EvidenceStore().Counts().Fields["agent"]
}

// Attribution is stored at ingest, whatever the order of the files: the
// proxy and sensor logs before the ledger end up attributed exactly as the
// ledger-first order does.
func TestAttributionAtIngestInAnyOrder(t *testing.T) {
	sample := filepath.Join("..", "sample-incidents", "egress-probe-exfil")
	ledger := filepath.Join(sample, "ledger.jsonl")
	others := []string{filepath.Join(sample, "proxy"), filepath.Join(sample, "sensor")}
	ctx := context.Background()

	first, err := incident.Create(filepath.Join(t.TempDir(), "ledger-first"))
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if _, err := first.Ingest(ctx, append([]string{ledger}, others...), incident.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	last, err := incident.Create(filepath.Join(t.TempDir(), "ledger-last"))
	if err != nil {
		t.Fatal(err)
	}
	defer last.Close()
	if _, err := last.Ingest(ctx, others, incident.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := agentsOf(t, last)[""]; n < 700 {
		t.Fatalf("before the ledger, %d events should be unattributed", n)
	}
	if _, err := last.Ingest(ctx, []string{ledger}, incident.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	a, b := agentsOf(t, first), agentsOf(t, last)
	if a["agent-7"] < 300 || a["agent-3"] < 100 {
		t.Errorf("ledger first: %v", a)
	}
	for agent, n := range a {
		if b[agent] != n {
			t.Errorf("%q: %d events ledger-first, %d ledger-last", agent, n, b[agent])
		}
	}
	hits, err := last.Search(ctx, evidence.Request{Query: evidence.MustParse("+agent:agent-7 +source:proxy +attributed_via:src_ip"), Limit: 1})
	if err != nil || hits.Total < 20 {
		t.Errorf("agent-7's proxy lines by src_ip: %v %v", hits, err)
	}
	hits, err = last.Search(ctx, evidence.Request{Query: evidence.MustParse("+agent:agent-3 +src_ip:10.0.3.7"), Limit: 1})
	if err != nil || hits.Total == 0 {
		t.Errorf("the reused IP's later owner: %v %v", hits, err)
	}
}
