package evidence

import "testing"

// The AGENT column names whose an event is even when no agent is: the
// person who made it, or the agents it is ambiguous between.
func TestWho(t *testing.T) {
	for _, c := range []struct {
		ev   Event
		want string
	}{
		{Event{Agent: "agent-7", Tags: []string{"candidate:x"}}, "agent-7"},
		{Event{Tags: []string{"actor:oncall:pdiaz"}}, "(oncall:pdiaz)"},
		{Event{Tags: []string{"binding-conflict", "candidate:agent-1", "candidate:agent-2"}}, "?agent-1|agent-2"},
		{Event{}, ""},
	} {
		if got := c.ev.Who(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.ev, got, c.want)
		}
	}
}
