package detect_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
)

// An event_count with neq judges each group's final count in a window
// opened by its first event, not the count on its way up: neq 3 gives
// nothing for exactly three denials, a finding for two and for four.
func TestEventCountNeq(t *testing.T) {
	evs := cat(series("a", "tool_call", 0, 10, 3, "decision", "deny"), series("b", "tool_call", 0, 10, 2, "decision", "deny"),
		series("c", "tool_call", 0, 10, 4, "decision", "deny"))
	r := detect.Rule{Query: []string{"decision:deny"}, Correlation: detect.Correlation{Type: detect.EventCount,
		Window: time.Minute, Condition: detect.Condition{Neq: detect.Num(3)}}}
	if got := summary(run(t, r, evs)); got != "b:2 c:4" {
		t.Errorf("findings %q, want b:2 c:4", got)
	}
}

// neq belongs to the counts over a window; a temporal correlation's
// steps seen are refused it, and a rule file may write it.
func TestNeqCondition(t *testing.T) {
	r := detect.Rule{ID: "t", Title: "t", Severity: "high", Phase: "detect", Explain: "{{steps}}",
		Correlation: detect.Correlation{Type: detect.Temporal, Window: time.Minute,
			Steps: []detect.Step{{Name: "a", Query: "tool:a"}, {Name: "b", Query: "tool:b"}}, Condition: detect.Condition{Neq: detect.Num(1)}}}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "neq belongs to event_count") {
		t.Errorf("temporal with neq: %v", err)
	}
	rs, err := detect.Parse("r.yaml", []byte(strings.Replace(goodRule, "{gte: 5}", "{neq: 5}", 1)))
	if err != nil || len(rs) != 1 || rs[0].Correlation.Condition.Neq == nil || *rs[0].Correlation.Condition.Neq != 5 {
		t.Fatalf("rule file with neq: %v %+v", err, rs)
	}
	if s := rs[0].Correlation.Condition.String(); s != "!= 5" {
		t.Errorf("condition %q, want != 5", s)
	}
}
