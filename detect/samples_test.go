package detect_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/sample-incidents/truth"
)

// sampleFindings attributes a sample incident and runs the built-in rules
// over it in memory.
func sampleFindings(t *testing.T, name string) []detect.Finding {
	t.Helper()
	_, _, r := oneShot(t, name)
	return r.Findings
}

func overlaps(f detect.Finding, from, to time.Time) bool {
	return !f.End.Before(from) && !f.Start.After(to)
}

// extra are findings the built-in rules raise beyond truth.yaml, whose
// detector list predates some rules (agent, detector, lowest severity).
var extra = map[string][][3]string{
	"egress-probe-exfil":     {{"agent-7", "credential-then-egress", "high"}, {"agent-7", "data-exfiltration", "high"}},
	"credential-theft":       {{"agent-12", "credential-then-egress", "high"}, {"agent-12", "destination-expansion", "medium"}},
	"persistence-after-kill": {{"agent-21", "persistence-after-session-end", "critical"}, {"agent-21", "persistence-files", "high"}},
}

// Every sample incident's truth.yaml names the findings a good detector
// set raises and the benign agents that must get nothing of medium or
// above; busy-benign is there to catch detectors firing on volume.
func TestSampleIncidentsAgainstTruth(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "sample-incidents", "*", "truth.yaml"))
	if err != nil || len(paths) < 5 {
		t.Fatalf("truth files: %v %v", paths, err)
	}
	for _, p := range paths {
		name := filepath.Base(filepath.Dir(p))
		t.Run(name, func(t *testing.T) {
			tr, err := truth.Load(p)
			if err != nil {
				t.Fatal(err)
			}
			fs := sampleFindings(t, name)
			for _, want := range tr.Findings {
				if !present(fs, want.Agent, want.Detector, want.MinSeverity, want.From, want.To) {
					t.Errorf("missing %s %s >= %s in %s–%s (%s)", want.Agent, want.Detector, want.MinSeverity,
						want.From.Format(time.TimeOnly), want.To.Format(time.TimeOnly), want.Note)
				}
			}
			for _, x := range extra[name] {
				if !present(fs, x[0], x[1], x[2], time.Time{}, time.Now()) {
					t.Errorf("missing %s %s >= %s", x[0], x[1], x[2])
				}
			}
			for _, f := range fs {
				if tr.IsBenign(f.Agent) && detect.SeverityRank(f.Severity) >= detect.SeverityRank(detect.SeverityMedium) {
					t.Errorf("benign %s got %s %s: %s", f.Agent, f.Severity, f.Detector, f.Explanation)
				}
			}
			if testing.Verbose() {
				for _, f := range fs {
					t.Logf("%-9s %-8s %-29s %s–%s %s", f.Agent, f.Severity, f.Detector,
						f.Start.Format(time.TimeOnly), f.End.Format(time.TimeOnly), f.Explanation)
				}
			}
		})
	}
}

func present(fs []detect.Finding, agent, detector, minSev string, from, to time.Time) bool {
	for _, f := range fs {
		if f.Agent == agent && f.Detector == detector && overlaps(f, from, to) &&
			detect.SeverityRank(f.Severity) >= detect.SeverityRank(minSev) {
			return true
		}
	}
	return false
}

// The CI job's uses of agent-9's credential come from no sandbox and are
// attributed to agent-9 by the credential alone; the finding must name
// agent-12, whose tool call put the credential in the job, never agent-9.
func TestStolenCredentialIsChargedToTheThief(t *testing.T) {
	fs := sampleFindings(t, "credential-theft")
	for _, f := range fs {
		if f.Agent == "agent-9" {
			t.Errorf("the victim got a finding: %s %s", f.Detector, f.Explanation)
		}
		if f.Detector == "credential-misuse" {
			if f.Agent != "agent-12" || !strings.Contains(f.Explanation, "10.30.8.15 (no sandbox)") || !strings.Contains(f.Explanation, "issued to agent-9") {
				t.Errorf("credential misuse: %s %s", f.Agent, f.Explanation)
			}
			if f.End.Before(time.Date(2026, 8, 11, 10, 33, 27, 0, time.UTC)) {
				t.Errorf("misuse ends at %s, before the CI job's last successful use", f.End)
			}
		}
	}
}

// Finding ids are stable: the same evidence gives the same ids.
func TestFindingIDsAreStable(t *testing.T) {
	a, b := sampleFindings(t, "persistence-after-kill"), sampleFindings(t, "persistence-after-kill")
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("%d and %d findings", len(a), len(b))
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].ID == "" {
			t.Errorf("finding %d: id %q then %q", i, a[i].ID, b[i].ID)
		}
	}
}

// Attributing as the rules read (for a store that did not keep
// attribution) gives the findings of attributing everything first.
func TestAttributeWhileReading(t *testing.T) {
	rules, err := detect.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"credential-theft", "persistence-after-kill"} {
		want := sampleFindings(t, name)
		eng := detect.Engine{Rules: rules, Attribute: true}
		got, err := eng.Run(context.Background(), detect.NewMemSource(loadSample(t, name)))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d findings, want %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || got[i].Explanation != want[i].Explanation {
				t.Errorf("%s: %s %q, want %s %q", name, got[i].Detector, got[i].Explanation, want[i].Detector, want[i].Explanation)
			}
		}
	}
}
