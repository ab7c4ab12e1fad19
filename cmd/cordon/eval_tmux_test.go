package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvaluationPaneInTmux: on the evaluation run, tab reaches the
// Evaluation pane, which lists the tests tried with their controls'
// outcomes; enter on the sensor that missed the ~/.git-credentials read
// opens that read on the timeline, and esc goes back.
func TestEvaluationPaneInTmux(t *testing.T) {
	sample, err := filepath.Abs(filepath.Join("..", "..", "sample-incidents", "eval-run-canaries"))
	if err != nil {
		t.Fatal(err)
	}
	c := startTmuxSized(t, 80, 24, func(dir, bin string) (string, string) {
		ws := filepath.Join(dir, "incident")
		return fmt.Sprintf("env XDG_STATE_HOME=%s XDG_CONFIG_HOME=%s TERM=xterm-256color %s open --incident %s %s",
			dir, filepath.Join(dir, "config"), bin, ws, sample), ws
	})
	c.wait("the timeline", "TIMELINE", "506 events")
	for range 6 {
		c.send("Tab")
	}
	s := c.wait("the scorecard", "EVALUATION", "8/38 tests tried", "read-credential-git [read-secret]")
	fits(t, s, 24)
	if !strings.Contains(s, "✗ missed") || !strings.Contains(s, "✓ fired") {
		t.Errorf("outcomes are not said in words and signs:\n%s", s)
	}
	// read-credential-git's sensor control is the 15th row
	for range 13 {
		c.send("j")
	}
	c.wait("why the sensor missed", "holds none of it")
	c.send("Enter")
	c.wait("the read no sensor saw", "TIMELINE", "1 hit", "read_file path=/home/agent/.git")
	c.send("Escape")
	c.wait("the pane again", "EVALUATION", "holds none of it")
	c.send("q")
	c.wait("cordon to exit", "reopen with: cordon open")
}

// cordon open --eval-suite and --eval-run: the Evaluation pane scores the
// suite and the run named on the command line, over cordon.yaml's (the
// case names none here) and the built-in suite.
func TestEvaluationPaneFromFlagsInTmux(t *testing.T) {
	sample, err := filepath.Abs(filepath.Join("..", "..", "sample-incidents", "eval-run-canaries"))
	if err != nil {
		t.Fatal(err)
	}
	builtin, err := os.ReadFile(filepath.Join("..", "..", "eval", "builtin.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(suite, []byte(strings.Replace(string(builtin), "suite: cordon-builtin", "suite: lab-suite", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startTmuxSized(t, 140, 30, func(dir, bin string) (string, string) {
		ws := filepath.Join(dir, "incident")
		return fmt.Sprintf("env XDG_STATE_HOME=%s XDG_CONFIG_HOME=%s TERM=xterm-256color %s open --eval-suite %s --eval-run r-eval-1006 --incident %s %s",
			dir, filepath.Join(dir, "config"), bin, suite, ws, sample), ws
	})
	c.wait("the timeline", "TIMELINE", "506 events")
	for range 6 {
		c.send("Tab")
	}
	c.wait("the flags' suite and run", "EVALUATION", "suite lab-suite · run r-eval-1006")
	c.send("q")
	c.wait("cordon to exit", "reopen with: cordon open")

	// a suite that does not load is refused before the console opens
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("suite: x\ntests: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := cordon("open", "--eval-suite", bad, sample)
	if code != 2 || !strings.Contains(errOut, "--eval-suite") || !strings.Contains(errOut, "bad.yaml") {
		t.Errorf("a bad suite: exit %d\n%s%s", code, out, errOut)
	}
}
