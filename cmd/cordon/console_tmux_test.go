package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/serve/servetest"
)

// consoleSizes are the terminals the console's tmux tests run in.
var consoleSizes = [][2]int{{80, 24}, {200, 50}}

// startSizedConsole is startTmuxConsole at w×h, with env (NAME=value
// pairs) before the command line.
func startSizedConsole(t *testing.T, w, h int, env ...string) *tmuxConsole {
	t.Helper()
	fixture, err := filepath.Abs(incidenttest.ConsoleFixture())
	if err != nil {
		t.Fatal(err)
	}
	return startTmuxSized(t, w, h, func(dir, bin string) (string, string) {
		ws := filepath.Join(dir, "incident")
		return fmt.Sprintf("env XDG_STATE_HOME=%s XDG_CONFIG_HOME=%s TERM=xterm-256color %s %s open --incident %s %s",
			dir, filepath.Join(dir, "config"), strings.Join(env, " "), bin, ws, fixture), ws
	})
}

// eachSize runs f in every console size.
func eachSize(t *testing.T, f func(t *testing.T, w, h int)) {
	for _, sz := range consoleSizes {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) { f(t, sz[0], sz[1]) })
	}
}

// fits fails when the screen has more lines than the terminal.
func fits(t *testing.T, s string, h int) {
	t.Helper()
	if lines := strings.Split(strings.TrimRight(s, "\n"), "\n"); len(lines) > h {
		t.Errorf("%d lines on a %d-line terminal", len(lines), h)
	}
}

// TestSearchReplacesThePreviousQueryInTmux: / shows the previous query
// selected, and typing replaces it rather than appending to it.
func TestSearchReplacesThePreviousQueryInTmux(t *testing.T) {
	eachSize(t, func(t *testing.T, w, h int) {
		c := startSizedConsole(t, w, h)
		c.wait("the timeline", "TIMELINE", "74 events")
		c.send("/")
		c.send("-l", "curl")
		c.send("Enter")
		c.wait("the results", "2 hits · search: curl")
		c.send("/")
		c.wait("the previous query, selected", "/curl  (type to replace")
		c.send("-l", "nohup")
		s := c.wait("the query replaced", "/nohup")
		if strings.Contains(s, "curlnohup") {
			t.Errorf("typing appended to the previous query:\n%s", s)
		}
		c.send("Enter")
		s = c.wait("the new results", "search: nohup")
		fits(t, s, h)
		c.send("q")
		c.wait("cordon to exit", "reopen with: cordon open")
	})
}

// TestCommandLineInTmux: : completes a verb and its argument with tab,
// and :goto moves the timeline.
func TestCommandLineInTmux(t *testing.T) {
	eachSize(t, func(t *testing.T, w, h int) {
		c := startSizedConsole(t, w, h)
		c.wait("the timeline", "TIMELINE", "74 events")
		c.send(":")
		c.wait("the command line", "tab completes")
		c.send("-l", "sub")
		c.send("Tab")
		c.wait("the verb completed", ":subject ")
		c.send("-l", "agent-")
		c.send("Tab")
		c.wait("the agents offered", "tab: agent-")
		c.send("Escape")
		c.send(":")
		c.send("-l", "goto 10:05")
		c.send("Enter")
		s := c.wait("the jump", "at 2026-07-21T10:05:00Z")
		fits(t, s, h)
		c.send("q")
		c.wait("cordon to exit", "reopen with: cordon open")
	})
}

// TestJumpToNextDenialInTmux: ] goes to the next denial and says so.
func TestJumpToNextDenialInTmux(t *testing.T) {
	eachSize(t, func(t *testing.T, w, h int) {
		c := startSizedConsole(t, w, h)
		// once the first pass is in: a pass that ends reloads the window,
		// and a jump asked before it would land in the old one
		c.wait("the timeline", "TIMELINE", "74 new events")
		c.send("]")
		c.wait("the jump said", "denial at ")
		// the status can come before the window around the denial
		c.waitUntil("a denial selected", func(s string) bool { return strings.Contains(selectedRow(s), "DENY") })
		c.send("q")
		c.wait("cordon to exit", "reopen with: cordon open")
	})
}

// selectedRow is the timeline's row under the cursor on a screen.
func selectedRow(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "▸") {
			return l
		}
	}
	return ""
}

// TestObserverRefusedAtColonInTmux: over SSH an observer's : line that
// would change the case is refused and the journal does not grow; a
// responder's :report lands in the workspace's exports/ folder.
func TestObserverRefusedAtColonInTmux(t *testing.T) {
	fixture, err := filepath.Abs(incidenttest.ConsoleFixture())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "incident")
	if code, _, errOut := cordon("ingest", "--incident", dir, fixture); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	alice := servetest.NewKey(t, "alice@oncall")
	olive := servetest.NewKey(t, "olive@audit")
	keys := t.TempDir()
	servetest.WriteKeys(t, filepath.Join(keys, "oncall.keys"), alice)
	servetest.WriteKeys(t, filepath.Join(keys, "observers.keys"), olive)
	s := launchServe(t, dir, alice, "--authorized-keys", filepath.Join(keys, "oncall.keys"),
		"--observers", filepath.Join(keys, "observers.keys"))
	x := newSSHTmux(t, s)
	for i, sz := range consoleSizes {
		user := fmt.Sprintf("olive%d", i)
		x.connectSized(user, olive, sz[0], sz[1])
		x.wait(user, "the console", "TIMELINE", "74 events")
		x.send(user, ":")
		x.send(user, "-l", "subject agent-7")
		x.send(user, "Enter")
		x.wait(user, "the refusal", ":subject refused: read-only: observers cannot")
	}
	x.connectSized("alice", alice, 80, 24)
	x.wait("alice", "the console", "TIMELINE", "74 events")
	x.send("alice", ":")
	x.send("alice", "-l", "report md /tmp/elsewhere.md")
	x.send("alice", "Enter")
	x.wait("alice", "the path refused", "refused over SSH")
	x.send("alice", ":")
	x.send("alice", "-l", "report md")
	x.send("alice", "Enter")
	x.wait("alice", "the report written", "wrote ", "exports")
	if files, _ := filepath.Glob(filepath.Join(dir, "exports", "report-*.md")); len(files) != 1 {
		t.Errorf("exports/ holds %q", files)
	}
	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := j.Entries()
	for _, e := range entries {
		if e.Actor.Key == olive.Fingerprint() {
			t.Errorf("the observer wrote to the journal: %+v", e)
		}
	}
}

// TestFailedFileReasonInTmux: a file cordon cannot read is said in the
// console while it runs, with the reason, and :files lists it.
func TestFailedFileReasonInTmux(t *testing.T) {
	eachSize(t, func(t *testing.T, w, h int) {
		fixture, err := filepath.Abs(incidenttest.ConsoleFixture())
		if err != nil {
			t.Fatal(err)
		}
		junk := filepath.Join(t.TempDir(), "capture.bin")
		if err := os.WriteFile(junk, []byte("\x00\x01\x02 not a log format cordon reads\n\x7fELF\x02\x01"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := startTmuxSized(t, w, h, func(dir, bin string) (string, string) {
			ws := filepath.Join(dir, "incident")
			return fmt.Sprintf("env XDG_STATE_HOME=%s XDG_CONFIG_HOME=%s TERM=xterm-256color %s open --incident %s %s %s",
				dir, dir, bin, ws, fixture, junk), ws
		})
		c.wait("the header's count", "1 not ingested (:files)")
		c.send(":")
		c.send("-l", "files")
		c.send("Enter")
		s := c.wait("the reason", "NOT INGESTED", "capture.bin")
		fits(t, s, h)
		c.send("Escape", "q")
		c.wait("cordon to exit", "reopen with: cordon open")
	})
}

// TestFacetExcludeInTmux: in the field picker x excludes a value: the
// header's filter reads NOT it.
func TestFacetExcludeInTmux(t *testing.T) {
	eachSize(t, func(t *testing.T, w, h int) {
		c := startSizedConsole(t, w, h)
		c.wait("the timeline", "TIMELINE", "74 events")
		c.send("f")
		c.wait("the fields", "FILTER BY FIELD")
		for _, f := range evidence.FacetFields() {
			if f == "source" {
				break
			}
			c.send("j")
		}
		c.wait("source selected", "▸ source")
		c.send("Enter")
		c.wait("the values", "FILTER BY source", "x or - excludes")
		c.send("x")
		s := c.wait("the value excluded", "filter -= NOT source:", "filter: NOT source:")
		fits(t, s, h)
		c.send("q")
		c.wait("cordon to exit", "reopen with: cordon open")
	})
}

// TestRawRecordWrapsInTmux: a raw record longer than the terminal wraps
// in the event view (its end shows) instead of being cut with "…".
func TestRawRecordWrapsInTmux(t *testing.T) {
	eachSize(t, func(t *testing.T, w, h int) {
		c := startSizedConsole(t, w, h)
		c.wait("the timeline", "TIMELINE", "74 events")
		c.send("/")
		c.send("-l", "format:falco")
		c.send("Enter")
		c.wait("the results", "search: format:falco", "3 hits")
		// the header may show the search before the page under it holds
		// its results: open the selected event until it is Falco's (an exec)
		for i := 0; ; i++ {
			c.send("Enter")
			if c.wait("the event", "EVENT  "); c.shows(time.Second, "EVENT  proc_exec") {
				break
			}
			if i == 5 {
				t.Fatalf("the event opened is not Falco's:\n%s", c.screen())
			}
			c.send("Escape")
			c.wait("the results again", "TIMELINE", "search: format:falco")
		}
		// page down to the raw record's long "output" line
		for i := 0; i < 12 && !c.shows(time.Second, "↪"); i++ {
			c.send("NPage")
		}
		s := c.wait("a wrapped line", "↪")
		if !strings.Contains(s, "RAW RECORD") && !strings.Contains(s, `"output"`) {
			t.Errorf("the wrapped line is not the raw record's:\n%s", s)
		}
		fits(t, s, h)
		c.send("q")
		c.wait("cordon to exit", "reopen with: cordon open")
	})
}

// shows polls the screen for up to d until every part shows.
func (c *tmuxConsole) shows(d time.Duration, parts ...string) bool {
	deadline := time.Now().Add(d)
	for {
		s := c.screen()
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(s, p)
		}
		if ok || time.Now().After(deadline) {
			return ok
		}
		time.Sleep(50 * time.Millisecond) // polling a real terminal
	}
}

// waitUntil polls the screen until ok says it shows what the test waits for.
func (c *tmuxConsole) waitUntil(what string, ok func(screen string) bool) string {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := c.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("timed out waiting for %s; the screen shows:\n%s", what, s)
		}
		time.Sleep(50 * time.Millisecond) // polling a real terminal
	}
}
