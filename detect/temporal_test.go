package detect_test

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// toolFilter is a Filter on the event's tool, standing in for a rule
// compiled from another language.
type toolFilter string

func (f toolFilter) Match(ev *evidence.Event) bool { return ev.Tool == string(f) }
func (f toolFilter) MarshalText() ([]byte, error)  { return []byte(f), nil }

func TestTemporalAnyOrderWithinWindow(t *testing.T) {
	r := detect.Rule{Correlation: detect.Correlation{Type: detect.Temporal, Window: time.Minute, Steps: []detect.Step{
		{Name: "read", Query: "kind:tool_call", Filter: toolFilter("read")},
		{Name: "send", Query: "kind:tool_call", Filter: toolFilter("send")},
	}}}
	evs := []evidence.Event{
		// agent-1: send then read, 30s apart: a match in either order
		mk(0, "agent-1", "tool_call", "tool", "send"),
		mk(30, "agent-1", "tool_call", "tool", "read"),
		// agent-2: read, and send two minutes later: outside the window
		mk(0, "agent-2", "tool_call", "tool", "read"),
		mk(120, "agent-2", "tool_call", "tool", "send"),
		// agent-3: only reads
		mk(0, "agent-3", "tool_call", "tool", "read"),
		mk(10, "agent-3", "tool_call", "tool", "read"),
	}
	if got := summary(run(t, r, evs)); got != "agent-1:2" {
		t.Errorf("findings %s, want agent-1:2", got)
	}
}

func TestRuleFilterNarrowsTheQuery(t *testing.T) {
	r := detect.Rule{Query: []string{"kind:tool_call"}, Filter: toolFilter("send"),
		Correlation: detect.Correlation{Type: detect.EventCount, Window: time.Minute, Condition: detect.Condition{Gte: detect.Num(2)}}}
	evs := []evidence.Event{
		mk(0, "agent-1", "tool_call", "tool", "send"),
		mk(1, "agent-1", "tool_call", "tool", "read"),
		mk(2, "agent-2", "tool_call", "tool", "send"),
		mk(3, "agent-2", "tool_call", "tool", "send"),
	}
	// agent-1 has two tool calls but one send: the filter leaves it out
	if got := summary(run(t, r, evs)); got != "agent-2:2" {
		t.Errorf("findings %s, want agent-2:2", got)
	}
}
