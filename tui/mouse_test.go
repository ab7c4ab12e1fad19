package tui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// cursorRow is the screen line the "▸" cursor is on, -1 when none.
func cursorRow(screen string) int {
	for i, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "▸") {
			return i
		}
	}
	return -1
}

// TestMouseWheelScrollsEveryList: the wheel moves the cursor of each list
// pane, and of the field picker over the timeline.
func TestMouseWheelScrollsEveryList(t *testing.T) {
	ws := incidenttest.New(t)
	for i := range 12 { // a journal long enough to scroll
		if _, err := ws.Note(context.Background(), testActor, "", "", fmt.Sprintf("note %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	wheel := func(b tea.MouseButton) tea.MouseMsg { return tea.MouseMsg{Button: b, Action: tea.MouseActionPress} }
	for _, p := range []struct {
		name string
		keys []string
	}{
		{"timeline", nil},
		{"agents", []string{"tab"}},
		{"findings", []string{"tab", "tab"}},
		{"playbook", []string{"tab", "tab", "tab"}},
		{"journal", []string{"tab", "tab", "tab", "tab"}},
		{"facet", []string{"f"}},
	} {
		t.Run(p.name, func(t *testing.T) {
			c := newConsole(t, ws, 80, 24, termenv.Ascii)
			c.keys(p.keys...)
			c.keys("g")
			before := cursorRow(c.screen())
			c.send(wheel(tea.MouseButtonWheelDown))
			after := cursorRow(c.screen())
			if before < 0 || after <= before {
				t.Fatalf("wheel down: cursor on line %d, then %d:\n%s", before, after, c.screen())
			}
			c.send(wheel(tea.MouseButtonWheelUp))
			if back := cursorRow(c.screen()); back != before {
				t.Errorf("wheel up: cursor on line %d, want %d", back, before)
			}
		})
	}
}
