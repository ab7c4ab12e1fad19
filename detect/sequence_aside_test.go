package detect_test

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// An ordered sequence keeps a later step's event only while a first
// step's event could still begin a sequence with it: one of the same
// instant as a first step's event that sorts after it (by id) still
// joins, one out of every first step's window does not.
func TestSequenceLaterStepOfTheSameInstant(t *testing.T) {
	r := detect.Rule{Correlation: detect.Correlation{Type: detect.OrderedSequence, Window: time.Minute,
		Condition: detect.Condition{Gte: detect.Num(1)}, Steps: []detect.Step{
			{Name: "read", Query: "kind:tool_call", Filter: toolFilter("read")},
			{Name: "send", Query: "kind:tool_call", Filter: toolFilter("send")},
		}}}
	at := func(sec float64, agent, tool, id string) evidence.Event {
		ev := mk(sec, agent, "tool_call", "tool", tool)
		ev.ID = id
		return ev
	}
	evs := []evidence.Event{
		// agent-1: the send sorts before the read of its instant, after an
		// earlier read's window: it is put aside, and joins the read
		at(0, "agent-1", "read", "a1-0"),
		at(100, "agent-1", "send", "a1-1"),
		at(100, "agent-1", "read", "a1-2"),
		// agent-2: a send with no read before it, then a read: nothing
		at(0, "agent-2", "send", "a2-0"),
		at(10, "agent-2", "read", "a2-1"),
		// agent-3: a send past the read's window, then a read and a send
		// within one: one sequence of the last two
		at(0, "agent-3", "read", "a3-0"),
		at(120, "agent-3", "send", "a3-1"),
		at(200, "agent-3", "read", "a3-2"),
		at(230, "agent-3", "send", "a3-3"),
	}
	fs := run(t, r, evs)
	if got := summary(fs); got != "agent-1:2 agent-3:2" {
		t.Fatalf("findings %s, want agent-1:2 agent-3:2", got)
	}
	if ev := fs[0].Events; ev[0] != "a1-1" && ev[1] != "a1-1" {
		t.Errorf("agent-1's sequence is %v, want the send a1-1 in it", ev)
	}
	if ev := fs[1].Events; ev[0] != "a3-2" || ev[1] != "a3-3" {
		t.Errorf("agent-3's sequence is %v, want a3-2 a3-3", ev)
	}
}
