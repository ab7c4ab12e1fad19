package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Two agents whose names differ by a Cyrillic letter are two agents: cordon
// agents writes the look-alike one out (<U+0430 Cyrillic>) and flags both.
func TestAgentsFlagsLookAlikeNames(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ledger.jsonl")
	lines := []string{
		`{"v":1,"ts":"2026-07-21T10:00:00Z","type":"session_start","run":"r-1","agent":"agent-7","session":"s-1","sandbox":{"id":"sb-1","ip":"10.0.3.7"}}`,
		`{"v":1,"ts":"2026-07-21T10:00:01Z","type":"session_start","run":"r-1","agent":"аgent-7","session":"s-2","sandbox":{"id":"sb-2","ip":"10.0.3.8"}}`,
		`{"v":1,"ts":"2026-07-21T10:00:02Z","type":"tool_call","run":"r-1","agent":"аgent-7","session":"s-2","call_id":"c-1","tool":"bash","args":{"cmd":"id"}}`,
	}
	if err := os.WriteFile(src, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inc := filepath.Join(dir, "incident")
	if code, out, errOut := cordon("ingest", "--incident", inc, src); code != 0 {
		t.Fatalf("ingest: %d %s %s", code, out, errOut)
	}
	code, out, errOut := cordon("agents", "--incident", inc)
	if code != 0 || !strings.Contains(out, "<U+0430 Cyrillic>gent-7") || strings.Count(out, "LOOK-ALIKE") != 2 {
		t.Errorf("agents: %d\n%s%s", code, out, errOut)
	}
}
