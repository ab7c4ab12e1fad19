package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRelatedGroupInTmux walks the console's "done when" at 80×24 with
// keys the help lists: the help's query finds agent-7's denials, enter
// opens one, n reaches a related group's header, enter shows the group in
// the timeline and esc comes back to the event. The search is kept in the
// workspace's history.
func TestRelatedGroupInTmux(t *testing.T) {
	c := startTmuxConsole(t)
	c.wait("the timeline", "TIMELINE", "74 events", "? help")
	c.send("?")
	c.wait("the help", "HELP", "agent:agent-7 decision:deny")
	c.send("Escape")
	c.wait("the timeline again", "TIMELINE")
	c.send("/")
	c.send("-l", "agent:agent-7 decision:deny")
	c.send("Enter")
	c.wait("agent-7's denials", "search: agent:agent-7 decision:deny", "DENY")
	c.send("Enter")
	c.wait("the event", "EVENT", "decision         DENY")
	c.send("n")
	c.wait("a group's header", "enter: all in the timeline")
	c.send("Enter")
	c.wait("the group in the timeline", "TIMELINE", "esc goes back to the event")
	c.send("Escape")
	c.wait("the event again", "EVENT", "back to the event")
	c.send("q")
	c.wait("cordon to exit", "reopen with: cordon open") // the path may wrap at 80 columns
	b, err := os.ReadFile(filepath.Join(c.ws, "history.json"))
	if err != nil || !strings.Contains(string(b), `"agent:agent-7 decision:deny"`) {
		t.Errorf("history.json: %s %v", b, err)
	}
}
