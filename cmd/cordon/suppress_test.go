package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// A suppression made with cordon suppress is there for the next command
// (a restart), in the journal, in cordon findings and the report, and the
// journal still verifies.
func TestSuppressCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	if code, _, errOut := cordon("suppress", "--incident", dir, "--detector", "persistence"); code != exitUsage || !strings.Contains(errOut, "REASON") {
		t.Errorf("no reason: %d %s", code, errOut)
	}
	code, out, errOut := cordon("suppress", "--incident", dir, "--detector", "persistence", "--agent", "agent-21", "the", "eval's", "watchdog")
	if code != 0 || !strings.Contains(out, "covers 1 finding(s)") {
		t.Fatalf("suppress: %d %s %s", code, out, errOut)
	}
	code, out, _ = cordon("suppress", "list", "--incident", dir, "--json")
	var s struct {
		ID     string `json:"id"`
		Reason string `json:"reason"`
		Covers int    `json:"covers"`
		By     struct{ Name, Via string }
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &s); code != 0 || err != nil || s.Reason != "the eval's watchdog" || s.Covers != 1 || s.By.Via != "cli" {
		t.Fatalf("list: %d %v %s", code, err, out)
	}
	code, out, _ = cordon("journal", "--incident", dir, "--json", "--type", "suppression")
	if code != 0 || !strings.Contains(out, `"the eval's watchdog"`) {
		t.Errorf("journal: %d %s", code, out)
	}
	if code, out, errOut := cordon("journal", "verify", "--incident", dir); code != 0 {
		t.Errorf("journal verify: %d %s %s", code, out, errOut)
	}
	code, out, errOut = cordon("findings", "--incident", dir)
	if code != 0 || !strings.Contains(out, "suppressed by "+s.ID) || !strings.Contains(errOut, "3 findings, 1 suppressed") {
		t.Errorf("findings: %d %s %s", code, out, errOut)
	}
	code, out, _ = cordon("report", "--incident", dir)
	if code != 0 || !strings.Contains(out, "## Suppressions") || !strings.Contains(out, "the eval's watchdog") {
		t.Errorf("report: %d\n%s", code, out)
	}
}
