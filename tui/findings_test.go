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
	fs := c.m.Findings().Findings()
	if len(fs) == 0 {
		t.Fatal("no finding for the fixture")
	}
	for i := 1; i < len(fs); i++ {
		if detect.SeverityRank(fs[i].Severity) > detect.SeverityRank(fs[i-1].Severity) {
			t.Errorf("finding %d (%s) sorts after a less severe one", i, fs[i].Severity)
		}
	}
	s := c.screen()
	first := strings.SplitN(fs[0].Detector, "-", 2)[0]
	if !strings.Contains(s, findings.Label(fs[0].Severity)+" ") || !strings.Contains(s, first) {
		t.Errorf("findings pane lacks the first finding %s %s:\n%s", fs[0].Severity, fs[0].Detector, s)
	}
	c.keys("enter")
	tl := c.m.Timeline()
	if c.m.Focus() != "timeline" || tl.Filter().Op() != evidence.OpIDs {
		t.Fatalf("focus %s filter %q", c.m.Focus(), tl.Filter())
	}
	want := min(len(fs[0].Events), findings.MaxFilterIDs)
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
	c.keys("tab", "tab")
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
}
