package tui_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// The indicator register is a pane tab reaches after the journal: it
// leads with what the agent acquired, and enter opens a value's events on
// the timeline.
func TestIndicatorPaneOpensAValuesEvents(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	c := newConsole(t, ws, 120, 40, termenv.Ascii)
	for c.m.Focus() != "indicators" {
		c.keys("tab")
		if c.m.Focus() == "timeline" {
			t.Fatal("tab never reached the indicator pane")
		}
	}
	ins := c.m.Indicators().Indicators()
	if len(ins) == 0 || ins[0].Value != "px-s228" || ins[0].Origin != "acquired" {
		t.Fatalf("register: %+v", ins)
	}
	s := c.screen()
	for _, want := range []string{"KIND", "px-s228", "acquired", "agent-12,agent-9", "10.30.8.15", "enter filters the timeline"} {
		if !strings.Contains(s, want) {
			t.Errorf("the pane lacks %q:\n%s", want, s)
		}
	}
	c.keys("enter")
	if c.m.Focus() != "timeline" || !strings.Contains(c.m.Timeline().FilterText(), "px-s228") {
		t.Errorf("enter: focus %s, filter %q", c.m.Focus(), c.m.Timeline().FilterText())
	}
	if hits, known := c.m.Timeline().Hits(); !known || hits != uint64(len(ins[0].Events)) {
		t.Errorf("the timeline finds %d events (known %v), the indicator has %d", hits, known, len(ins[0].Events))
	}
}
