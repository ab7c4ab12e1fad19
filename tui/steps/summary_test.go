package steps

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident"
)

func TestCheckSummarySaysWhyChecksDidNotRun(t *testing.T) {
	res := []incident.CheckResult{
		{Step: "detect.signal", Status: incident.CheckVerified},
		{Step: "contain.verify", Status: incident.CheckNotRun, Detail: "needs contained_at: mark the step that stops the agent done"},
		{Step: "eradicate.creds", Status: incident.CheckNotRun, Detail: "needs contained_at: mark the step that stops the agent done"},
	}
	got := CheckSummary(res, map[string]string{"contained_at": "contain.stop"})
	for _, want := range []string{"1 verified", "2 not run", "contain.verify needs contained_at: mark contain.stop done first", "and 1 more"} {
		if !strings.Contains(got, want) {
			t.Errorf("summary %q lacks %q", got, want)
		}
	}
	one := CheckSummary(res[1:2], map[string]string{"contained_at": "contain.stop"})
	if !strings.Contains(one, "mark contain.stop done first") {
		t.Errorf("one check: %q", one)
	}
}
