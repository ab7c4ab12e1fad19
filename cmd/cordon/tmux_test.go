package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// tmuxConsole is cordon open running in an 80×24 tmux on the console
// fixture, with the helpers to type and read the screen.
type tmuxConsole struct {
	t      *testing.T
	ws     string
	tmux   func(args ...string) (string, error)
	screen func() string
}

func startTmuxConsole(t *testing.T) *tmuxConsole {
	t.Helper()
	fixture, err := filepath.Abs(incidenttest.ConsoleFixture())
	if err != nil {
		t.Fatal(err)
	}
	return startTmux(t, func(dir, bin string) (string, string) {
		ws := filepath.Join(dir, "incident")
		return fmt.Sprintf("env XDG_STATE_HOME=%s TERM=xterm-256color %s open --incident %s %s", dir, bin, ws, fixture), ws
	})
}

// startTmux builds cordon and runs, in an 80×24 tmux, the command line
// that command makes from a scratch folder and the binary; ws is the
// workspace that command line works in.
func startTmux(t *testing.T, command func(dir, bin string) (line, ws string)) *tmuxConsole {
	t.Helper()
	return startTmuxSized(t, 80, 24, command)
}

// startTmuxSized is startTmux in a w×h terminal.
func startTmuxSized(t *testing.T, w, h int, command func(dir, bin string) (line, ws string)) *tmuxConsole {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (CI installs it; apt-get install tmux to run this test)")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := cordonBinary(t)
	socket := fmt.Sprintf("cordon-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	line, ws := command(dir, bin)
	t.Cleanup(func() {
		tmux("kill-server")
		// the console closes its workspace after the hangup: wait for it
		// to go, or the folder's removal races its last writes
		if !waitExited(dir) {
			t.Logf("a cordon of %s still ran 10 s after the hangup", dir)
		}
	})
	if out, err := tmux("new-session", "-d", "-s", "cordon", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), line); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	if out, err := tmux("set-option", "-t", "cordon", "remain-on-exit", "on"); err != nil {
		t.Fatalf("tmux set-option: %v\n%s", err, out)
	}
	screen := func() string {
		out, _ := tmux("capture-pane", "-p", "-t", "cordon")
		return out
	}
	return &tmuxConsole{t: t, ws: ws, tmux: tmux, screen: screen}
}

// builtCordon is the binary the tmux tests run: built once per test
// process (a build per test would be most of their time), removed by
// TestMain.
var builtCordon struct {
	once     sync.Once
	dir, bin string
	out      []byte
	err      error
}

// cordonBinary builds cordon once and returns its path.
func cordonBinary(t *testing.T) string {
	t.Helper()
	builtCordon.once.Do(func() {
		builtCordon.dir, builtCordon.err = os.MkdirTemp("", "cordon-tmux-")
		if builtCordon.err != nil {
			return
		}
		builtCordon.bin = filepath.Join(builtCordon.dir, "cordon")
		build := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", builtCordon.bin, ".")
		builtCordon.out, builtCordon.err = build.CombinedOutput()
	})
	if builtCordon.err != nil {
		t.Fatalf("go build: %v\n%s", builtCordon.err, builtCordon.out)
	}
	return builtCordon.bin
}

// wait polls the screen until every part shows.
func (c *tmuxConsole) wait(what string, parts ...string) string {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := c.screen()
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(s, p)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s; the screen shows:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond) // polling a real terminal
	}
}

func (c *tmuxConsole) send(keys ...string) {
	c.tmux(append([]string{"send-keys", "-t", "cordon"}, keys...)...)
}

// TestConsoleInTmux is the smoke test of the real binary in a real terminal:
// build cordon, run `cordon open` on the console fixture in an 80×24 tmux,
// search, and read the screen back.
func TestConsoleInTmux(t *testing.T) {
	c := startTmuxConsole(t)
	c.wait("the timeline", "TIMELINE", "74 events", "session_start", "following 4 files")
	c.send("/")
	c.send("-l", "curl")
	c.wait("the search bar", "/curl")
	c.send("Enter")
	s := c.wait("the results", "2 hits · search: curl", "curl -s http://169.254")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 24 {
		t.Errorf("%d lines on a 24-line terminal", len(lines))
	}
	c.send("q")
	c.wait("cordon to exit", "reopen with: cordon open "+c.ws)
}

// TestPlaybookInTmux marks a step done in the Playbook pane and finds it in
// the Journal pane, and a note typed with q in it does not quit.
func TestPlaybookInTmux(t *testing.T) {
	c := startTmuxConsole(t)
	// the follow's first round journals what the detectors found
	c.wait("the timeline", "TIMELINE", "74 events", "6 findings")
	c.send("Tab", "Tab", "Tab")
	c.wait("the playbook", "PLAYBOOK", "Detect 0/2", "[ ] Confirm that an agent crossed")
	c.send("d")
	c.wait("the step done", "[x] Confirm that an agent crossed", "Detect 1/2", "detect.signal done")
	c.send("n")
	c.wait("the note input", "note on detect.signal:")
	c.send("-l", "quiet q here")
	c.send("Enter")
	c.wait("the note saved", "note added")
	c.send("Tab")
	s := c.wait("the journal", "JOURNAL", "chain ok, 7 entries", "step_done", "detect.signal", "quiet q here")
	if lines := strings.Split(strings.TrimRight(s, "\n"), "\n"); len(lines) > 24 {
		t.Errorf("%d lines on a 24-line terminal", len(lines))
	}
	c.send("q")
	c.wait("cordon to exit", "reopen with: cordon open "+c.ws)
}

func TestNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	r := renderer(os.Stdout)
	if got := r.NewStyle().Bold(true).Foreground(lipgloss.Color("203")).Render("DENY"); got != "DENY" {
		t.Errorf("NO_COLOR still styles: %q", got)
	}
}

// TestAssistantInTmux opens the assistant on a finding with no endpoint
// configured: summarize answers offline at once, and enter on a claim
// filters the timeline to the events it cites.
func TestAssistantInTmux(t *testing.T) {
	for _, v := range []string{"CORDON_LLM_BASE_URL", "CORDON_LLM_MODEL", "OPENAI_API_KEY"} {
		t.Setenv(v, "") // the tmux server, and so cordon, inherit these
	}
	c := startTmuxConsole(t)
	c.wait("the timeline", "TIMELINE", "74 events")
	c.send("Tab", "Tab")
	c.wait("the agents, ranked", "FINDINGS", "agent-7", "not contained")
	c.send("Enter")
	c.wait("agent-7's episodes", "FINDINGS", "boundary-probing")
	c.send("a")
	c.wait("the task picker", "ASSISTANT", "on: finding", "offline (no endpoint configured)", "▸ summarize")
	c.send("Enter")
	s := c.wait("the offline answer", "offline answer (no endpoint configured)", "cites real events, which hold", "the exchange is in the journal")
	if strings.Contains(s, "UNVERIFIED") || strings.Contains(s, "NOT SUPPORTED") {
		t.Errorf("an offline claim is unverified or unsupported:\n%s", s)
	}
	if lines := strings.Split(strings.TrimRight(s, "\n"), "\n"); len(lines) > 24 {
		t.Errorf("%d lines on a 24-line terminal", len(lines))
	}
	c.send("Enter")
	c.wait("the claim's events", "TIMELINE", "timeline filtered to the", "claim 1 cites")
	c.send("q")
	c.wait("cordon to exit", "reopen with: cordon open "+c.ws)
}

// waitExited waits, up to 10 s, until no process's command line names
// dir (Linux's /proc; elsewhere it returns at once), and says whether
// none did.
func waitExited(dir string) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		running := false
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), dir) {
				running = true
				break
			}
		}
		if !running {
			return true
		}
	}
	return false
}
