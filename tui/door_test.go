package tui_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// TestConsolesShareOneDetectorRun: two consoles on one workspace, as two
// SSH sessions have, run the detectors once between them: each Findings
// pane, each Playbook pane's case and a check of every step read that one
// run. (The Findings pane used to run the detectors on its own, by the
// built-in rules only, once per console.)
func TestConsolesShareOneDetectorRun(t *testing.T) {
	ws := incidenttest.New(t)
	addRule(t, ws.Dir)
	a := newConsole(t, ws, 80, 24, termenv.Ascii)
	b := newConsole(t, ws, 80, 24, termenv.Ascii)
	a.keys("tab", "tab")
	b.keys("tab", "tab")
	fa, fb := a.m.Findings().Findings(), b.m.Findings().Findings()
	if len(fa) == 0 || len(fa) != len(fb) {
		t.Fatalf("the two Findings panes show %d and %d findings", len(fa), len(fb))
	}
	for _, fs := range [][]detect.Finding{fa, fb} {
		if !slices.ContainsFunc(fs, func(f detect.Finding) bool { return f.Detector == addedRule }) {
			t.Fatal("a Findings pane lacks the rule the workspace's cordon.yaml adds: it ran the detectors on its own")
		}
	}
	a.keys("tab", "C") // the Playbook pane's case, then every check
	b.keys("tab")
	if text, err := a.m.Status(); err != nil || text == "" {
		t.Fatalf("C: %q, %v", text, err)
	}
	if n := ws.DetectorRuns(); n != 1 {
		t.Errorf("the detectors ran %d times for two consoles, want once", n)
	}
}

// addedRule is the detector of the rule addRule adds.
const addedRule = "every-tool-call"

// addRule writes a cordon.yaml into the workspace folder dir that adds a
// rule to the built-in ones: a finding per hour with a tool call.
func addRule(t *testing.T, dir string) {
	t.Helper()
	const rule = `id: every-tool-call
title: Tool calls
severity: low
phase: detect
explain: "{{count}} tool calls in {{span}}"
query: "+kind:tool_call"
correlation:
  type: event_count
  window: 1h
  condition:
    gte: 1
`
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"cordon.yaml": "rules: extra.yaml\n", "extra.yaml": rule} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDrillFindingsAgreeWithDebrief: a drill's Findings pane runs the
// rules its workspace's cordon.yaml adds, as its debrief does, so that a
// finding the facilitator expects by one of them is on screen and scored.
// (The pane used to run the built-in rules only.)
func TestDrillFindingsAgreeWithDebrief(t *testing.T) {
	c := newDrillConsole(t, true, 120, 40, func(dir string) { addRule(t, dir) })
	c.keys("J", "J") // release evidence
	c.keys("tab", "tab")
	pane := c.m.Findings().Findings()
	i := slices.IndexFunc(pane, func(f detect.Finding) bool { return f.Detector == addedRule })
	if i < 0 {
		t.Fatalf("the drill's Findings pane lacks the rule cordon.yaml adds: %d findings", len(pane))
	}
	ws, err := c.d.WS.CachedFindings(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if key := func(fs []detect.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		slices.Sort(out)
		return out
	}; !slices.Equal(key(pane), key(ws)) {
		t.Errorf("the pane shows %d findings, the debrief reads %d", len(pane), len(ws))
	}
	s := *c.d.Script
	s.Expect.Findings = append(slices.Clone(s.Expect.Findings), drill.ExpectedFinding{Agent: pane[i].Agent, Detector: pane[i].Detector})
	deb, err := drill.BuildDebrief(context.Background(), c.d.WS, &s, c.d.State)
	if err != nil {
		t.Fatal(err)
	}
	if last := deb.Findings[len(deb.Findings)-1]; !last.Surfaced {
		t.Errorf("the debrief does not score the finding the pane shows: %+v", last)
	}
}
