package tui_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// TestDetailShowsAttributionPath: a proxy event's detail says which key
// tied it to which sandbox session and agent.
func TestDetailShowsAttributionPath(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("/")
	c.typeText("+source:proxy +agent:agent-7")
	c.keys("enter", "enter")
	if c.m.Focus() != "event" || c.m.Detail().Event().Source != "proxy" {
		t.Fatalf("focus %s on a %s event", c.m.Focus(), c.m.Detail().Event().Source)
	}
	c.keys("space")
	s := c.screen()
	if !strings.Contains(s, "ATTRIBUTION") || !strings.Contains(s, "→ agent-7 via src_ip") {
		t.Errorf("detail lacks the attribution path:\n%s", s)
	}
}
