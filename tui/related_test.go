package tui_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

// TestRelatedGroupInTimelineAndBack: enter on a related group's header
// shows the whole group in the timeline, named in the header; esc comes
// back to the event, the timeline as it was.
func TestRelatedGroupInTimelineAndBack(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.search("curl")
	c.keys("enter")
	ev := c.m.Detail().Event()
	groups := c.m.Detail().Related()
	if c.m.Focus() != "event" || len(groups) < 2 {
		t.Fatalf("focus %s, %d related groups", c.m.Focus(), len(groups))
	}
	for i, g := range groups {
		c.keys("n") // headers and events alike: the header comes first
		if i == 0 && !strings.Contains(c.screen(), "▸  "+g.Why) {
			t.Fatalf("n does not stop on the group's header:\n%s", c.screen())
		}
		if i == 0 {
			break
		}
	}
	c.keys("enter")
	tl := c.m.Timeline()
	if c.m.Focus() != "timeline" || tl.Search() != groups[0].Query.String() {
		t.Fatalf("enter on the header: focus %s, search %q, want %q", c.m.Focus(), tl.Search(), groups[0].Query)
	}
	if hits, _ := tl.Hits(); hits != groups[0].Total+1 { // the group and the event itself
		t.Errorf("the group shows %d events, it has %d and the event", hits, groups[0].Total)
	}
	s := c.screen()
	if !strings.Contains(s, "search: "+groups[0].Why+" · of tool_call") || !strings.Contains(s, "esc goes back to the event") {
		t.Errorf("header or status does not name the group:\n%s", s)
	}
	c.keys("esc")
	if c.m.Focus() != "event" || c.m.Detail().Event().ID != ev.ID || c.m.Timeline().Search() != "curl" {
		t.Errorf("esc: focus %s, event %s, search %q; want the event back and the search curl", c.m.Focus(), c.m.Detail().Event().ID, c.m.Timeline().Search())
	}
	// and esc again leaves the event for the timeline, as before
	c.keys("esc")
	if c.m.Focus() != "timeline" {
		t.Errorf("esc from the event goes to %s", c.m.Focus())
	}
}

// TestRelatedTimeWindowGroupIsBounded: a "±30s" group's query in the
// timeline finds that window, not every event of the agent.
func TestRelatedTimeWindowGroupIsBounded(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.search("curl")
	c.keys("enter")
	for _, g := range c.m.Detail().Related() {
		if !strings.HasSuffix(g.Why, "±30s") {
			continue
		}
		for c.m.Focus() == "event" && !strings.Contains(c.screen(), "▸  "+g.Why) {
			c.keys("n")
		}
		c.keys("enter")
		if hits, _ := c.m.Timeline().Hits(); hits != g.Total+1 {
			t.Errorf("%s: the timeline shows %d events, the group %d and the event", g.Why, hits, g.Total)
		}
		return
	}
	t.Fatal("no ±30s group")
}

// TestRelatedGroupFromAFilteredTimeline: the filter is set aside while the
// group shows, and is back after esc.
func TestRelatedGroupFromAFilteredTimeline(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("tab", "tab", "enter", "enter") // the first agent's first episode's evidence
	filter := c.m.Timeline().Filter()
	c.keys("enter", "n", "enter")
	if f := c.m.Timeline().Filter(); !f.IsAll() || !strings.Contains(c.screen(), "filter set aside") {
		t.Errorf("filter %q while a group shows:\n%s", f, c.screen())
	}
	c.keys("esc")
	if f := c.m.Timeline().Filter(); !f.Equal(filter) || !strings.Contains(c.screen(), "filter: finding ") {
		t.Errorf("after esc the filter is %q, want the finding's:\n%s", f, c.screen())
	}
}

// TestFilterLabels: a finding's evidence, a check's cited ids and a
// facet added to them read as words in the header; clearing the filter
// clears its label.
func TestFilterLabels(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 120, 40, termenv.Ascii)
	c.keys("tab", "tab", "enter")
	f, _ := c.m.Findings().Selected()
	c.keys("enter")
	header := strings.Split(c.screen(), "\n")[1]
	if !strings.Contains(header, "filter: finding "+f.Detector+" · "+f.Agent+" · ") || strings.Contains(header, "id:(") {
		t.Errorf("header: %q", header)
	}
	if c.m.Timeline().Filter().Op() != evidence.OpIDs {
		t.Errorf("the query that runs is %q, want the ids", c.m.Timeline().Filter())
	}
	// f adds a field value: the label stays, the clause shows after it
	c.keys("f", "enter", "enter")
	header = strings.Split(c.screen(), "\n")[1]
	if !strings.Contains(header, "filter: finding "+f.Detector) || !strings.Contains(header, " AND ") {
		t.Errorf("after a facet, header: %q (filter %q)", header, c.m.Timeline().Filter())
	}
	c.keys("esc")
	header = strings.Split(c.screen(), "\n")[1]
	if strings.Contains(header, "finding") || !c.m.Timeline().Filter().IsAll() {
		t.Errorf("esc leaves the label or the filter: %q %q", header, c.m.Timeline().Filter())
	}
	// typing the same ids by hand gets no label: it is not the finding's
	c.keys("tab", "tab", "enter", "esc")
	if s := c.screen(); strings.Contains(strings.Split(s, "\n")[1], "finding") {
		t.Errorf("label outlived its filter:\n%s", s)
	}
}

// TestRelatedGroupThenEventThenBack: an event opened from the group and
// left with esc returns to the group; esc there returns to the first
// event, the timeline as it was.
func TestRelatedGroupThenEventThenBack(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.search("curl")
	c.keys("enter")
	first := c.m.Detail().Event()
	c.keys("n", "enter", "j", "enter") // the group, then its next event
	if c.m.Focus() != "event" || c.m.Detail().Event().ID == first.ID {
		t.Fatalf("focus %s on %s", c.m.Focus(), c.m.Detail().Event().ID)
	}
	c.keys("esc")
	if c.m.Focus() != "timeline" || !strings.Contains(c.screen(), "search: same call_id") {
		t.Fatalf("esc from the group's event: focus %s\n%s", c.m.Focus(), c.screen())
	}
	c.keys("esc")
	if c.m.Focus() != "event" || c.m.Detail().Event().ID != first.ID || c.m.Timeline().Search() != "curl" {
		t.Errorf("second esc: focus %s, event %s, search %q", c.m.Focus(), c.m.Detail().Event().ID, c.m.Timeline().Search())
	}
}
