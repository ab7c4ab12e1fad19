package tui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// requireGolden compares a screen with testdata/TestGoldenViews/NAME.golden,
// rewritten by go test ./tui -run TestGoldenViews -update (the flag of
// charmbracelet/x/exp/golden, which teatest also uses).
func requireGolden(t *testing.T, got string) {
	t.Helper()
	// trailing spaces are invisible in review; checkSize checks the width
	lines := strings.Split(got, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	golden.RequireEqual(t, []byte(strings.Join(lines, "\n")+"\n"))
}

// checkSize asserts the screen is exactly w×h cells.
func checkSize(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Errorf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if n := cellWidth(l); n > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i+1, n, w, l)
		}
	}
}

func TestGoldenViews(t *testing.T) {
	ws := incidenttest.New(t)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		for _, view := range []struct {
			name string
			keys []string
		}{
			{"timeline", nil},
			{"timeline-relative", []string{"t", "G"}},
			{"search", []string{"/", "c", "u", "r", "l", "enter"}},
			{"detail", []string{"/", "c", "u", "r", "l", "enter", "enter"}},
			{"detail-related", []string{"/", "c", "u", "r", "l", "enter", "enter", "n"}},
			{"agents", []string{"tab"}},
			{"findings", []string{"tab", "tab"}},
			{"findings-episodes", []string{"tab", "tab", "enter"}},
			{"facet", []string{"f", "j", "j", "enter"}},
			{"help", []string{"?"}},
			{"playbook", []string{"tab", "tab", "tab"}},
			{"playbook-step", []string{"tab", "tab", "tab", "j", "enter"}},
			{"journal", []string{"tab", "tab", "tab", "tab"}},
			// a finding's evidence: the header names the finding, not its ids
			{"finding-evidence", []string{"tab", "tab", "enter", "enter"}},
			// the first related group of the first curl event, in the timeline
			{"related-group", []string{"/", "c", "u", "r", "l", "enter", "enter", "n", "enter"}},
		} {
			t.Run(fmt.Sprintf("%s-%dx%d", view.name, w, h), func(t *testing.T) {
				c := newConsole(t, ws, w, h, termenv.Ascii)
				c.keys(view.keys...)
				s := c.screen()
				checkSize(t, s, w, h)
				requireGolden(t, s)
			})
		}
	}
}

// TestGoldenWide: the timeline and event panes on a wide, tall terminal
// (200x60), where every column shows.
func TestGoldenWide(t *testing.T) {
	ws := incidenttest.New(t)
	for _, view := range []struct {
		name string
		keys []string
	}{
		{"timeline", nil},
		{"timeline-denied", []string{"/", "+", "d", "e", "c", "i", "s", "i", "o", "n", ":", "d", "e", "n", "y", "enter"}},
		{"detail", []string{"/", "c", "u", "r", "l", "enter", "enter"}},
		{"detail-related", []string{"/", "c", "u", "r", "l", "enter", "enter", "n", "n"}},
	} {
		t.Run(view.name+"-200x60", func(t *testing.T) {
			c := newConsole(t, ws, 200, 60, termenv.Ascii)
			c.keys(view.keys...)
			s := c.screen()
			checkSize(t, s, 200, 60)
			requireGolden(t, s)
		})
	}
}

// TestGoldenCasework: the Playbook and Journal panes after some work, on a
// journal whose clock is fixed so that the entries' times are stable.
func TestGoldenCasework(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		ws := incidenttest.New(t)
		ws.SetClock(func() time.Time { return time.Date(2026, 7, 21, 10, 30, 0, 0, time.UTC) })
		c := newConsole(t, ws, w, h, termenv.Ascii)
		c.toPlaybook("detect.evidence")
		c.keys("s", "enter", "j", "space", "n")
		c.typeText("sensor gap 10:05-10:07 on node-3 \x1b]0;owned\x07")
		c.keys("enter")
		t.Run(fmt.Sprintf("playbook-%dx%d", w, h), func(t *testing.T) {
			s := c.screen()
			checkSize(t, s, w, h)
			requireGolden(t, s)
		})
		c.keys("esc", "tab")
		t.Run(fmt.Sprintf("journal-%dx%d", w, h), func(t *testing.T) {
			s := c.screen()
			checkSize(t, s, w, h)
			requireGolden(t, s)
		})
	}
}
