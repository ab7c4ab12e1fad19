package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReportCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pak")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	// The ingest journaled the evidence it received; the report adds nothing.
	journaled, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if err != nil || strings.Count(string(journaled), `"type":"evidence_received"`) != 5 {
		t.Fatalf("the ingest journaled: %v\n%s", err, journaled)
	}
	code, out, errOut := cordon("report", "--incident", dir)
	if code != 0 || !strings.HasPrefix(out, "# agent-21, 2026-09-02\n") {
		t.Fatalf("md: %d %s\n%.300s", code, errOut, out)
	}
	for _, want := range []string{"## Summary", "## The four questions", "### agent-21", "#### Why the controls allowed it", "## Attribution", "## Findings", "## Kill switch",
		"## Human interventions", "## Responder actions", "## Assistant exchanges", "## Open items", "## Appendix", "### Evidence received", "### Journal verification"} {
		if !strings.Contains(out, want) {
			t.Errorf("md lacks %q", want)
		}
	}

	code, out, errOut = cordon("report", "--incident", dir, "--format", "json")
	var r struct {
		Incident string
		Summary  struct{ Events int64 }
		Layers   []struct{ Status string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Incident != "pak" || r.Summary.Events != 1290 || len(r.Layers) != 7 {
		t.Errorf("json: %d %s %+v", code, errOut, r)
	}

	file := filepath.Join(t.TempDir(), "report.html")
	if code, out, errOut := cordon("report", "--incident", dir, "--format", "html", "-o", file); code != 0 || out != "" {
		t.Fatalf("html: %d %s %s", code, out, errOut)
	}
	b, err := os.ReadFile(file)
	if err != nil || !strings.HasPrefix(string(b), "<!DOCTYPE html>") || !strings.Contains(string(b), "agent-21") {
		t.Errorf("html file: %v %.200s", err, b)
	}

	// A Markdown report written to a file has its pictures beside it; the
	// same workspace, command line and journal head give the same bytes.
	mdFile := filepath.Join(t.TempDir(), "case.md")
	var first map[string]string
	for range 2 {
		if code, out, errOut := cordon("report", "--incident", dir, "-o", mdFile); code != 0 || out != "" {
			t.Fatalf("md file: %d %s %s", code, out, errOut)
		}
		got := map[string]string{}
		for _, name := range []string{"case.md", "case-killswitch.svg", "case-graph.svg", "case-timeline.svg"} {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(mdFile), name))
			if err != nil || len(b) == 0 {
				t.Fatalf("%s: %v", name, err)
			}
			got[name] = string(b)
		}
		if !strings.Contains(got["case.md"], "![Kill switch") || !strings.Contains(got["case.md"], "(case-timeline.svg)") {
			t.Errorf("the Markdown does not show its pictures")
		}
		if first == nil {
			first = got
			continue
		}
		for name, b := range got {
			if b != first[name] {
				t.Errorf("%s differs between two runs of the same command", name)
			}
		}
	}

	if code, _, errOut := cordon("report", "--incident", dir, "--format", "pdf"); code != exitUsage || !strings.Contains(errOut, "pdf") {
		t.Errorf("bad format: %d %s", code, errOut)
	}
	if code, _, _ := cordon("report", "--incident", filepath.Join(t.TempDir(), "none")); code != exitNotFound {
		t.Errorf("no workspace: %d", code)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "journal.jsonl")); string(after) != string(journaled) {
		t.Errorf("the report wrote to the journal:\n%s", after[len(journaled):])
	}
}

func TestExportCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pak")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "persistence-after-kill")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("export", "--incident", dir, "--format", "timesketch")
	if code != 0 || strings.Count(out, "\n") != 1290 || !strings.Contains(errOut, "1290 events exported") {
		t.Fatalf("export: %d %d lines %s", code, strings.Count(out, "\n"), errOut)
	}
	first := out[:strings.IndexByte(out, '\n')]
	var m map[string]any
	if err := json.Unmarshal([]byte(first), &m); err != nil || m["message"] == nil || m["datetime"] == nil || m["timestamp_desc"] == nil {
		t.Errorf("first line %v: %s", err, first)
	}

	file := filepath.Join(t.TempDir(), "agent-21.jsonl")
	if code, _, errOut := cordon("export", "--incident", dir, "--format", "timesketch", "-o", file, "+agent:agent-21", "+kind:proc_exec"); code != 0 {
		t.Fatalf("export query: %d %s", code, errOut)
	}
	b, _ := os.ReadFile(file)
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if !strings.Contains(l, `"agent":"agent-21"`) || !strings.Contains(l, `"timestamp_desc":"Process Executed"`) {
			t.Fatalf("line outside the query: %s", l)
		}
	}
	if code, _, errOut := cordon("export", "--incident", dir, "--format", "csv"); code != exitUsage || !strings.Contains(errOut, "timesketch") {
		t.Errorf("bad format: %d %s", code, errOut)
	}
}
