package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// startTmuxDrill runs `cordon drill` on a sample incident in an 80×24 tmux;
// the drill's folder is c.ws.
func startTmuxDrill(t *testing.T, sample string, args ...string) *tmuxConsole {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it; apt-get install tmux to run this test)")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "cordon")
	build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	scenario, err := filepath.Abs(filepath.Join("..", "..", "sample-incidents", sample))
	if err != nil {
		t.Fatal(err)
	}
	socket := fmt.Sprintf("cordon-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { tmux("kill-server") })
	out := filepath.Join(dir, "drill")
	cmd := fmt.Sprintf("env XDG_STATE_HOME=%s TERM=xterm-256color %s drill %s --out %s %s", dir, bin, scenario, out, strings.Join(args, " "))
	if out, err := tmux("new-session", "-d", "-s", "cordon", "-x", "80", "-y", "24", cmd); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	if out, err := tmux("set-option", "-t", "cordon", "remain-on-exit", "on"); err != nil {
		t.Fatalf("tmux set-option: %v\n%s", err, out)
	}
	screen := func() string {
		out, _ := tmux("capture-pane", "-p", "-t", "cordon")
		return out
	}
	return &tmuxConsole{t: t, ws: out, tmux: tmux, screen: screen}
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
