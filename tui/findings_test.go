package tui_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/tui/findings"
	"github.com/muesli/termenv"
)

func TestFindingsPaneFiltersTimeline(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	if c.m.Findings().Loaded() {
		t.Fatal("detectors ran before the pane was shown")
	}
	c.keys("tab", "tab")
	if c.m.Focus() != "findings" {
		t.Fatalf("tab tab focuses %s", c.m.Focus())
	}
	// the first screen lists agents, ranked, not findings
	ranks := c.m.Findings().Ranks()
	if len(ranks) == 0 || ranks[0].Agent != "agent-7" {
		t.Fatalf("ranks %+v, want agent-7 first", ranks)
	}
	if s := c.screen(); !strings.Contains(s, "▸ 1   agent-7") || !strings.Contains(s, ranks[0].Reason[:20]) {
		t.Errorf("the first screen lacks the ranked agent and its reason:\n%s", s)
	}
	if _, ok := c.m.Findings().Selected(); ok {
		t.Error("a finding is selected on the agents screen")
	}
	c.keys("enter")
	fs := c.m.Findings().Findings()
	if len(fs) == 0 {
		t.Fatal("no finding for the fixture")
	}
	f, ok := c.m.Findings().Selected()
	if !ok || f.Agent != "agent-7" {
		t.Fatalf("enter on agent-7: selected %+v", f)
	}
	for i := 1; i < len(fs); i++ {
		if detect.SeverityRank(fs[i].Severity) > detect.SeverityRank(fs[i-1].Severity) {
			t.Errorf("finding %d (%s) sorts after a less severe one", i, fs[i].Severity)
		}
	}
	s := c.screen()
	first := strings.SplitN(f.Detector, "-", 2)[0]
	if !strings.Contains(s, findings.Label(f.Severity)+" ") || !strings.Contains(s, first) || !strings.Contains(s, "agent-7 · ") {
		t.Errorf("episodes screen lacks the first episode %s %s:\n%s", f.Severity, f.Detector, s)
	}
	// esc goes back to the agents, the cursor where it was
	c.keys("esc")
	if _, open := c.m.Findings().Agent(); open || c.m.Focus() != "findings" {
		t.Fatalf("esc from the episodes: still open %v, focus %s", open, c.m.Focus())
	}
	c.keys("enter", "enter")
	tl := c.m.Timeline()
	if c.m.Focus() != "timeline" || tl.Filter().Op() != evidence.OpIDs {
		t.Fatalf("focus %s filter %q", c.m.Focus(), tl.Filter())
	}
	want := min(len(f.Events), findings.MaxFilterIDs)
	if hits, _ := tl.Hits(); int(hits) != want {
		t.Errorf("filter shows %d events, the finding cites %d", hits, want)
	}
	// a search narrows the evidence, never widens it to the whole incident
	c.keys("/", "c", "u", "r", "l", "enter")
	if hits, _ := c.m.Timeline().Hits(); int(hits) > want {
		t.Errorf("search over the finding's evidence shows %d events, more than its %d", hits, want)
	}
}

func TestFindingsQueryCapsIDs(t *testing.T) {
	f := detect.Finding{Events: make([]string, findings.MaxFilterIDs+50)}
	for i := range f.Events {
		f.Events[i] = fmt.Sprintf("%016x", i)
	}
	if n := len(findings.Query(f).Values()); n != findings.MaxFilterIDs {
		t.Errorf("query has %d terms, want %d", n, findings.MaxFilterIDs)
	}
}

func TestFindingsLabelReadsWithoutColour(t *testing.T) {
	for sev, want := range map[string]string{"critical": "CRIT", "high": "HIGH", "medium": "MED", "low": "LOW", "info": "INFO"} {
		if got := findings.Label(sev); got != want {
			t.Errorf("Label(%s) = %s, want %s", sev, got, want)
		}
	}
}

// TestEscFromFindingEvidenceGoesBack: esc that clears a finding's evidence
// from the timeline returns to the Findings pane, as esc from a related
// group returns to its event.
func TestEscFromFindingEvidenceGoesBack(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("tab", "tab", "enter")
	if c.m.Focus() != "findings" || len(c.m.Findings().Findings()) == 0 {
		t.Fatalf("focus %s", c.m.Focus())
	}
	c.keys("enter")
	if c.m.Focus() != "timeline" || c.m.Timeline().Filter().IsAll() {
		t.Fatalf("enter on a finding: focus %s, filter %q", c.m.Focus(), c.m.Timeline().Filter())
	}
	c.keys("esc")
	if c.m.Focus() != "findings" || !c.m.Timeline().Filter().IsAll() {
		t.Errorf("esc: focus %s, filter %q; want back on findings with no filter", c.m.Focus(), c.m.Timeline().Filter())
	}
	if _, open := c.m.Findings().Agent(); !open {
		t.Error("back from the evidence, the pane left the agent's episodes")
	}
}
