package tui_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// colourViews are screens whose meaning is partly carried by colour.
var colourViews = []struct {
	name string
	keys []string
}{
	{"timeline", nil},
	{"denied", []string{"/", "+", "d", "e", "c", "i", "s", "i", "o", "n", ":", "d", "e", "n", "y", "enter"}},
	{"detail", []string{"/", "c", "u", "r", "l", "enter", "enter", "n", "n"}},
	{"findings", []string{"tab", "tab"}},
	{"finding-evidence", []string{"tab", "tab", "enter", "enter"}},
	{"journal", []string{"tab", "tab", "tab", "tab"}},
}

// TestLightBackgroundKeepsText: on a light background (DefaultStyles with
// dark=false) every screen shows the same text as on a dark one, in other
// colours. The palettes' contrast is checked in tui/common.
func TestLightBackgroundKeepsText(t *testing.T) {
	ws := incidenttest.New(t)
	for _, v := range colourViews {
		t.Run(v.name, func(t *testing.T) {
			dark := newConsoleOn(t, ws, 120, 40, termenv.ANSI256, true)
			light := newConsoleOn(t, ws, 120, 40, termenv.ANSI256, false)
			dark.keys(v.keys...)
			light.keys(v.keys...)
			d, l := dark.m.View(), light.m.View()
			if ansi.Strip(d) != ansi.Strip(l) {
				t.Errorf("light background changes the text:\n%s\n---- dark:\n%s", ansi.Strip(l), ansi.Strip(d))
			}
			if d == l {
				t.Error("light and dark backgrounds render the same colours")
			}
			checkSize(t, ansi.Strip(l), 120, 40)
		})
	}
}

// TestNoColorKeepsMeaning: with NO_COLOR (the renderer's ASCII profile) no
// escape sequence is drawn, and a denial, a severity and the selected row
// still read: by label and glyph, not by colour.
func TestNoColorKeepsMeaning(t *testing.T) {
	ws := incidenttest.New(t)
	for _, v := range colourViews {
		t.Run(v.name, func(t *testing.T) {
			c := newConsole(t, ws, 120, 40, termenv.Ascii)
			c.keys(v.keys...)
			s := c.m.View()
			if strings.Contains(s, "\x1b[") {
				t.Errorf("escape sequences without colour: %q", s)
			}
			if v.name != "journal" && !strings.Contains(s, "▸") { // the fixture's journal is empty
				t.Errorf("the selected row has no cursor glyph:\n%s", s)
			}
			var want []string
			switch v.name {
			case "timeline", "denied", "finding-evidence":
				want = []string{"DENY", "!=denied"}
			case "detail":
				want = []string{"DENY"}
			case "findings":
				want = []string{"HIGH"}
			}
			for _, w := range want {
				if !strings.Contains(s, w) {
					t.Errorf("no %q without colour:\n%s", w, s)
				}
			}
		})
	}
}
