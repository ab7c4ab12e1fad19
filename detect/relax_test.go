package detect

import (
	"testing"
)

func TestRelax(t *testing.T) {
	for _, c := range []struct {
		q, want string
		relaxed bool
	}{
		{"+decision:deny -kind:tool_result", "+decision:deny -kind:tool_result", false},
		{"+tags:after-session-end -attributed_via:credential -kind:proc_exit", "-kind:proc_exit", true},
		{"+agent:agent-7 curl", "", true},                      // curl was optional beside a required clause
		{"+agent:agent-7 +kind:x curl", "+kind:x", true},       // likewise
		{"kind:a agent:b", "", true},                           // an optional group loses a member: drop the group
		{"kind:a kind:b -agent:c", "kind:a kind:b", true},      // excluded clauses only narrow
		{`+agent:a\ b +cmdline:"x y"`, `+cmdline:"x y"`, true}, // escapes and phrases stay whole
		{"message:agent:x", "message:agent:x", false},          // the field is message
	} {
		got, relaxed := relax(c.q)
		if got != c.want || relaxed != c.relaxed {
			t.Errorf("relax(%q) = %q %v, want %q %v", c.q, got, relaxed, c.want, c.relaxed)
		}
	}
}
