package tui_test

import (
	"slices"

	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// TestSearchHistorySurvivesRestart: the queries run in one console are
// in the next console's ↑ on the same workspace, and two consoles open at
// once (SSH sessions) both keep theirs.
func TestSearchHistorySurvivesRestart(t *testing.T) {
	ws := incidenttest.New(t)
	a := newConsole(t, ws, 80, 24, termenv.Ascii)
	b := newConsole(t, ws, 80, 24, termenv.Ascii)
	a.search("agent:agent-7")
	b.search("+decision:deny")
	a.search("curl")

	got, err := ws.History().Load()
	if want := []string{"agent:agent-7", "+decision:deny", "curl"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("history.json holds %q (%v), want %q", got, err, want)
	}

	// a restart: / offers the newest of every console's, and ↑ walks back
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.keys("/")
	if !strings.Contains(c.screen(), "/curl") {
		t.Errorf("/ after a restart:\n%s", c.screen())
	}
	c.keys("up")
	if !strings.Contains(c.screen(), "/+decision:deny") {
		t.Errorf("↑↑ after a restart:\n%s", c.screen())
	}
	c.keys("esc")

	// running an old query again moves it to the newest, once
	c.search("agent:agent-7")
	got, _ = ws.History().Load()
	if want := []string{"+decision:deny", "curl", "agent:agent-7"}; !slices.Equal(got, want) {
		t.Errorf("after running a query again: %q, want %q", got, want)
	}
	if h := c.m.SearchHistory(); !slices.Equal(h, got) {
		t.Errorf("the bar's history %q, the file's %q", h, got)
	}
}

// search runs q from the search bar, replacing the search shown.
func (c *console) search(q string) {
	c.t.Helper()
	c.keys("/")
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	c.typeText(q)
	c.keys("enter")
}
