package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// startTmuxDrill runs `cordon drill` on a sample incident in an 80×24 tmux;
// the drill's folder is c.ws.
func startTmuxDrill(t *testing.T, sample string, args ...string) *tmuxConsole {
	t.Helper()
	scenario, err := filepath.Abs(filepath.Join("..", "..", "sample-incidents", sample))
	if err != nil {
		t.Fatal(err)
	}
	return startTmux(t, func(dir, bin string) (string, string) {
		out := filepath.Join(dir, "drill")
		return fmt.Sprintf("env XDG_STATE_HOME=%s TERM=xterm-256color %s drill %s --out %s %s", dir, bin, scenario, out, strings.Join(args, " ")), out
	})
}

// TestDrillConsoleInTmux: a facilitator starts the clock, jumps to the
// first inject, answers a question, ends the drill; the debrief is written
// and the command line says where the workspace is.
func TestDrillConsoleInTmux(t *testing.T) {
	c := startTmuxDrill(t, "persistence-after-kill")
	c.wait("the drill, paused", "DRILL ⏸ paused 13:18:04", "p starts the clock")
	c.send("p")
	c.wait("the clock running", "DRILL ▶ running")
	c.send("J")
	c.wait("the first inject", "INJECT 14:21:03", "I killed agent-21's session")
	for range 5 {
		c.send("Tab")
	}
	c.wait("the questions", "QUESTIONS", "BRIEFING", "1. which-agent · agent")
	c.send("Enter")
	c.wait("the answer input", "answer which-agent (agent):")
	c.send("-l", "agent-21")
	c.send("Enter")
	c.wait("the answer", "answer: agent-21", "1/6 answered", "answer to which-agent recorded")
	c.send("E")
	c.wait("the end asked", "end the drill?")
	c.send("-l", "yes")
	c.send("Enter")
	s := c.wait("the debrief", "■ ended 15:21:06", "drill ended: debrief written to")
	if lines := strings.Split(strings.TrimRight(s, "\n"), "\n"); len(lines) > 24 {
		t.Errorf("%d lines on a 24-line terminal", len(lines))
	}
	c.send("q")
	c.wait("cordon to exit", "workspace: "+filepath.Join(c.ws, "workspace"), "debrief: "+filepath.Join(c.ws, "debrief.md"))
	b, err := os.ReadFile(filepath.Join(c.ws, "debrief.md"))
	if err != nil || !strings.Contains(string(b), "agent-21") {
		t.Errorf("debrief.md: %v\n%s", err, b)
	}
}

// TestDrillParticipantInTmux: a participant's clock keys say whose they are.
func TestDrillParticipantInTmux(t *testing.T) {
	c := startTmuxDrill(t, "persistence-after-kill", "--role", "participant")
	c.wait("the drill", "DRILL ⏸ paused 13:18:04", "the facilitator runs the clock")
	c.send("p")
	c.wait("the refusal", "disabled: the facilitator runs the drill's clock")
	if s := c.screen(); strings.Contains(s, "running") || strings.Contains(s, "next inject") {
		t.Errorf("a participant's p ran the clock or sees the countdown:\n%s", s)
	}
	c.send("q")
	c.wait("cordon to exit", "cordon drill debrief ")
}
