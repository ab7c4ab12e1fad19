package tui_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// labSuite is a suite of the lab's own, beside the case.
const labSuite = `suite: lab-suite
title: Probing through the proxy
tests:
  - id: egress-probe-proxy
    behaviour: reach destinations beyond the allowlist through the egress proxy, again and again
    rung: probe
    evidence: "source:proxy decision:deny"
    min_events: 5
    controls:
      - refuse: proxy
      - detect: boundary-probing
        within: 10m
`

// The Evaluation pane scores the suite and the run the case's cordon.yaml
// names, with the scorecard eval run gives for them; r scores the next
// run of the case's, then the whole case.
func TestEvaluationPaneScoresTheConfiguredSuiteAndRun(t *testing.T) {
	first := incidenttest.New(t, "../sample-incidents/eval-run-canaries")
	dir := first.Dir
	first.Close()
	if err := os.WriteFile(filepath.Join(dir, "lab.yaml"), []byte(labSuite), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte("eval:\n  suite: lab.yaml\n  run: r-eval-1006\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	c := newConsole(t, ws, 120, 40, termenv.Ascii)
	for c.m.Focus() != "evaluation" {
		c.keys("tab")
		if c.m.Focus() == "timeline" {
			t.Fatal("tab never reached the evaluation pane")
		}
	}
	s, err := eval.Load(filepath.Join(dir, "lab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	same := func(run string) {
		t.Helper()
		want, err := eval.ScoreWith(context.Background(), ws, s, eval.Options{Run: run})
		if err != nil {
			t.Fatal(err)
		}
		got := c.m.Evaluation().Scorecard()
		if got == nil {
			t.Fatalf("run %q: no scorecard", run)
		}
		a, _ := json.Marshal(got.Tests)
		b, _ := json.Marshal(want.Tests)
		if got.Suite != "lab-suite" || got.Run != run || string(a) != string(b) {
			t.Errorf("the pane scored suite %s run %q:\n%s\neval run gives:\n%s", got.Suite, got.Run, a, b)
		}
	}
	same("r-eval-1006")
	if s := c.screen(); !strings.Contains(s, "suite lab-suite · run r-eval-1006 (r: next of 2)") || !strings.Contains(s, "egress-probe-proxy") {
		t.Errorf("the pane:\n%s", s)
	}
	c.keys("r")
	same("")
	c.keys("r")
	same("r-1006b")
}
