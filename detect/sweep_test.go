package detect_test

import (
	"fmt"
	"testing"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// An agent gone quiet holds nothing of its windows (lookups, counting
// windows) once the pass has swept (every 65,536 events; here at every
// one), though no event of its own came to expire them, and the sweeps
// change no finding.
func TestQuietAgentsAreSwept(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	day := offPlanDay(5, 6000)
	var evs []evidence.Event // agent a goes quiet a third of the way
	for _, ev := range day {
		if ev.Agent != "a" || ev.Kind == evidence.KindSessionStart || len(evs) < len(day)/3 {
			evs = append(evs, ev)
		}
	}
	detect.SweepEvery(t, 1<<40)
	unswept, want := passOver(t, rules, evs[:2], evs, 101)
	if n := detect.AgentLookups(unswept, "a"); n < 10 {
		t.Fatalf("unswept, agent a holds %d lookups: the day leaves none to sweep", n)
	}
	if n := detect.WindowEvents(unswept, "a"); n == 0 {
		t.Fatal("unswept, the counting rules' windows hold no event of agent a: the day leaves none to sweep")
	}
	for _, d := range []string{"denial-adaptation", "tool-escalation", "plan-divergence"} {
		if detectors(want)[d] == 0 {
			t.Fatalf("no %s finding (%v): the day does not test its sweep", d, detectors(want))
		}
	}
	detect.SweepEvery(t, 1)
	swept, got := passOver(t, rules, evs[:2], evs, 101)
	if n := detect.AgentLookups(swept, "a"); n > 0 {
		t.Errorf("agent a, quiet for hours, holds %d lookups after the sweeps", n)
	}
	if n := detect.WindowEvents(swept, "a"); n > 0 {
		t.Errorf("agent a, quiet for hours, has %d events in counting windows after the sweeps", n)
	}
	if detect.AgentLookups(swept, "b") == 0 {
		t.Error("agent b, busy to the end, holds nothing: the sweep dropped its window")
	}
	sameFindings(t, fmt.Sprintf("swept at every one of %d events", len(evs)), got, want)
}

func detectors(fs []detect.Finding) map[string]int {
	n := map[string]int{}
	for _, f := range fs {
		n[f.Detector]++
	}
	return n
}
