package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// TestConsoleOnTheMemoryStore runs the console on the second
// implementation of the Store contract (CORDON_STORE=memory): the same
// fixture, the same timeline, search and facets, with no Bleve index
// under the workspace.
func TestConsoleOnTheMemoryStore(t *testing.T) {
	fixture, err := filepath.Abs(incidenttest.ConsoleFixture())
	if err != nil {
		t.Fatal(err)
	}
	c := startTmux(t, func(dir, bin string) (string, string) {
		ws := filepath.Join(dir, "incident")
		return fmt.Sprintf("env CORDON_STORE=memory XDG_STATE_HOME=%s TERM=xterm-256color %s open --incident %s %s", dir, bin, ws, fixture), ws
	})
	c.wait("the timeline", "TIMELINE", "74 events", "session_start")
	c.send("/")
	c.send("-l", "kind:tool_call (cmdline:curl OR cmdline:wget)")
	c.send("Enter")
	c.wait("the results", "2 hits · search: kind:tool_call (cmdline:curl", "curl -s http://169.254",
		"read as kind:tool_call AND cmdline:(curl OR wget)")
	c.send("Escape", "/")
	c.send("-l", "nosuchfield:x")
	c.send("Enter")
	c.wait("the error", `unknown field "nosuchfield"`)
	c.send("Escape", "q")
	c.wait("cordon to exit", "74 new events from 4 files", "reopen with:")
	if m, _ := filepath.Glob(filepath.Join(c.ws, "index.bleve", "*")); len(m) > 0 {
		t.Errorf("the memory store wrote an index: %v", m)
	}
}
