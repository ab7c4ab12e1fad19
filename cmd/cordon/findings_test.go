package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFindingsCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("findings", "--incident", dir, "--json", "--min-severity", "high")
	if code != 0 {
		t.Fatalf("findings: %d %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	detectors := map[string]bool{}
	for _, l := range lines {
		var f map[string]any
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		for _, k := range []string{"detector", "agent", "severity", "start", "end", "events", "explanation", "phase"} {
			if _, ok := f[k]; !ok {
				t.Errorf("no %q in %s", k, l)
			}
		}
		if f["agent"] != "agent-21" {
			t.Errorf("finding about %v", f["agent"])
		}
		detectors[f["detector"].(string)] = true
	}
	if !detectors["persistence"] || !detectors["persistence-after-session-end"] {
		t.Errorf("detectors %v", detectors)
	}

	code, out, _ = cordon("findings", "--incident", dir, "--agent", "agent-21")
	if code != 0 || !strings.HasPrefix(out, "agent-21  ") || !strings.Contains(out, "CRITICAL") || !strings.Contains(out, "phase eradicate; evidence ") {
		t.Errorf("table: %d\n%s", code, out)
	}
	if code, _, errOut := cordon("findings", "--incident", dir, "--min-severity", "urgent"); code != exitUsage || !strings.Contains(errOut, "urgent") {
		t.Errorf("bad severity: %d %s", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("id: x\ntitle: t\nseverity: high\nphase: detect\nexplain: e\nquery: 'kind:x'\ncorrelation: {type: event_count, window: 1m, condition: {gte: 1}}\nlevel: 2\n"), 0o644)
	if code, _, errOut := cordon("findings", "--incident", dir, "--rules", bad); code != exitUsage || !strings.Contains(errOut, "bad.yaml:8: unknown field \"level\"") {
		t.Errorf("bad rules: %d %s", code, errOut)
	}
}
