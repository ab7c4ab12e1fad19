package detect_test

import (
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
)

func TestRankAgentsOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	f := func(agent, det, sev string) detect.Finding {
		return detect.Finding{ID: agent + det, Agent: agent, Detector: det, Severity: sev, Start: t0, End: t0, Matches: 1}
	}
	fs := []detect.Finding{
		f("low-only", "action-rate", "low"),
		f("two-med", "plan-divergence", "medium"), f("two-med", "intent-mismatch", "medium"),
		f("one-med", "plan-divergence", "medium"), f("one-med", "plan-divergence", "medium"),
		f("one-med-once", "plan-divergence", "medium"),
		f("crit", "credential-misuse", "critical"),
		f("", "credential-misuse", "critical"),
	}
	// crit is contained: it falls below every agent still open, but above
	// those with nothing to contain.
	// the Assessment of crit, killed at t0 with nothing held, is contained
	a := capability.Assess(capability.NewSet(nil), []string{"crit"}, t0, time.Time{}, everySource(t0))
	if !a.Contained {
		t.Fatalf("assessment %+v", a)
	}
	ranks := detect.RankAgents(detect.RankInput{Findings: fs, Assessment: &a,
		Suppressed: map[string]bool{"two-medintent-mismatch": true}})
	want := []string{"two-med", "one-med", "one-med-once", "crit", "low-only", ""}
	if len(ranks) != len(want) {
		t.Fatalf("%d ranks, want %d", len(ranks), len(want))
	}
	for i, r := range ranks {
		if r.Agent != want[i] || r.Rank != i+1 {
			t.Errorf("rank %d: %s (%s), want %s", r.Rank, r.Agent, r.Reason, want[i])
		}
	}
	if r := ranks[0]; r.Suppressed != 1 || r.Episodes != 2 || r.Reason != "not contained; 2 detectors, up to medium (intent-mismatch, plan-divergence); 2 episodes; 1 suppressed" {
		t.Errorf("two-med: %+v", r)
	}
	if r := ranks[3]; !r.Contained || r.Open || r.Reason != "contained; 1 detector, up to critical (credential-misuse); 1 episode" {
		t.Errorf("crit: %+v", r)
	}
}

// everySource is a coverage in which every source reported after t.
func everySource(t time.Time) *capability.Coverage {
	c := capability.NewCoverage()
	for _, o := range capability.AllObservers() {
		ev := evidence.Event{Source: o.Source, Format: o.Format, Time: t.Add(time.Hour)}
		if ev.Source == "" {
			ev.Source = evidence.SourceAudit
		}
		c.Observe(&ev)
	}
	return c
}
