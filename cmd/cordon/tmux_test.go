package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// TestConsoleInTmux is the smoke test of the real binary in a real terminal:
// build cordon, run `cordon open` on the console fixture in an 80×24 tmux,
// search, and read the screen back.
func TestConsoleInTmux(t *testing.T) {
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
	fixture, err := filepath.Abs(incidenttest.ConsoleFixture())
	if err != nil {
		t.Fatal(err)
	}
	socket := fmt.Sprintf("cordon-test-%d", os.Getpid())
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { tmux("kill-server") })
	ws := filepath.Join(dir, "incident")
	cmd := fmt.Sprintf("env XDG_STATE_HOME=%s TERM=xterm-256color %s open --incident %s %s", dir, bin, ws, fixture)
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
	waitScreen := func(what string, cond func(string) bool) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			s := screen()
			if cond(s) {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s; the screen shows:\n%s", what, s)
			}
			time.Sleep(50 * time.Millisecond) // polling a real terminal
		}
	}
	has := func(parts ...string) func(string) bool {
		return func(s string) bool {
			for _, p := range parts {
				if !strings.Contains(s, p) {
					return false
				}
			}
			return true
		}
	}
	waitScreen("the timeline", has("TIMELINE", "74 events", "session_start", "following 4 files"))
	tmux("send-keys", "-t", "cordon", "/")
	tmux("send-keys", "-t", "cordon", "-l", "curl")
	waitScreen("the search bar", has("/curl"))
	tmux("send-keys", "-t", "cordon", "Enter")
	s := waitScreen("the results", has("2 hits · search: curl", "curl -s http://169.254"))
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 24 {
		t.Errorf("%d lines on a 24-line terminal", len(lines))
	}
	tmux("send-keys", "-t", "cordon", "q")
	waitScreen("cordon to exit", has("reopen with: cordon open "+ws))
}

func TestNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	r := renderer(os.Stdout)
	if got := r.NewStyle().Bold(true).Foreground(lipgloss.Color("203")).Render("DENY"); got != "DENY" {
		t.Errorf("NO_COLOR still styles: %q", got)
	}
}
