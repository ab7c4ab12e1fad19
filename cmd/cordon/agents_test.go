package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgentsCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("agents", "--incident", dir)
	if code != 0 {
		t.Fatalf("agents: %d %s", code, errOut)
	}
	for _, want := range []string{
		"agent-7  model acme-large-2026-06  run r-0721a",
		"session s-19  sandbox sb-42  10:00:00–10:47:21 (ended)",
		"src_ip=10.0.3.7",
		// the coverage figure says what it measures (issue 33)
		"proxy   50.5% of the 220 events that carry an address, container, pod or credential come from an agent's session (111); 109 match no agent's session",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("agents lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = cordon("agents", "--incident", dir, "--json")
	if code != 0 {
		t.Fatalf("agents --json: %d %s", code, errOut)
	}
	var doc struct {
		Agents []struct {
			Agent    string `json:"agent"`
			Denied   int64  `json:"denied"`
			Bindings []struct {
				Via, Value, Session, Sandbox string
			} `json:"bindings"`
		} `json:"agents"`
		Coverage []struct {
			Source            string `json:"source"`
			Total, Attributed int64
		} `json:"coverage"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if len(doc.Agents) == 0 || doc.Agents[0].Agent != "agent-7" || doc.Agents[0].Denied == 0 || len(doc.Agents[0].Bindings) == 0 {
		t.Errorf("agents %+v", doc.Agents)
	}
	if len(doc.Coverage) != 2 || doc.Coverage[0].Attributed == 0 {
		t.Errorf("coverage %+v", doc.Coverage)
	}
	if code, _, _ := cordon("agents"); code != exitUsage {
		t.Errorf("agents without --incident exits %d", code)
	}
}
