package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// cordon findings --by agent ranks the culprit first, one JSON object per
// agent, with the reason in words.
func TestFindingsByAgent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("findings", "--incident", dir, "--by", "agent", "--json")
	if code != 0 {
		t.Fatalf("findings --by agent: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("want 4 agents, got %d:\n%s", len(lines), out)
	}
	var first struct {
		Rank      int      `json:"rank"`
		Agent     string   `json:"agent"`
		Open      bool     `json:"open"`
		Detectors []string `json:"detectors"`
		Reason    string   `json:"reason"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.Rank != 1 || first.Agent != "agent-21" || !first.Open || len(first.Detectors) != 3 || !strings.Contains(first.Reason, "left 2 processes running") {
		t.Errorf("first: %+v", first)
	}
	code, out, _ = cordon("findings", "--incident", dir, "--by", "agent")
	if code != 0 || !strings.HasPrefix(out, "  1  agent-21 ") || !strings.Contains(out, "no finding") {
		t.Errorf("table: %d\n%s", code, out)
	}
	if code, _, errOut := cordon("findings", "--incident", dir, "--by", "detector"); code != exitUsage || !strings.Contains(errOut, "want agent") {
		t.Errorf("--by detector: %d %s", code, errOut)
	}
}
