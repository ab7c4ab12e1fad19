package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
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
