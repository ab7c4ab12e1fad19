package detect

import (
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

func TestRelax(t *testing.T) {
	for _, c := range []struct {
		q, want string
		relaxed bool
	}{
		{"decision:deny AND NOT kind:tool_result", "decision:deny AND NOT kind:tool_result", false},
		{"tags:after-session-end -attributed_via:credential -kind:proc_exit", "NOT kind:proc_exit", true},
		{"agent:agent-7 curl", "curl", true},                                            // the agent is checked after attribution
		{"kind:a OR agent:b", "*", true},                                                // an alternative lost: any event may match
		{"(kind:a OR kind:b) -agent:c", "kind:(a OR b)", true},                          // excluded clauses only narrow
		{`agent:a\ b cmdline:x`, `cmdline:x`, true},                                     // escapes stay whole
		{"kind:x AND (agent:a OR tags:t) AND NOT (agent:b AND kind:y)", "kind:x", true}, // a negation naming one goes whole
		{`message:agent\:x`, `message:agent\:x`, false},                                 // the field is message
	} {
		got, relaxed := relax(evidence.MustParse(c.q))
		if got.String() != c.want || relaxed != c.relaxed {
			t.Errorf("relax(%q) = %q %v, want %q %v", c.q, got, relaxed, c.want, c.relaxed)
		}
	}
}
