package tui_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/muesli/termenv"
)

func TestFacetExcludesAValue(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 120, 40, termenv.Ascii)
	c.keys("f")
	for i := 0; i < 40 && !strings.Contains(c.screen(), "▸ agent"); i++ {
		c.keys("j")
	}
	c.keys("enter")
	s := c.screen()
	if !strings.Contains(s, "x or - excludes") {
		t.Fatalf("the values:\n%s", s)
	}
	c.keys("x")
	f := c.m.Timeline().FilterText()
	if !strings.HasPrefix(f, "-agent:") && !strings.HasPrefix(f, "NOT agent:") {
		t.Fatalf("x: filter %q, want the value excluded", f)
	}
	excluded := strings.TrimPrefix(strings.TrimPrefix(f, "-agent:"), "NOT agent:")
	for _, ev := range c.m.Timeline().Rows() {
		if ev.Agent == excluded {
			t.Errorf("an event of the excluded %s is shown", excluded)
		}
	}
}

func TestFacetPivotCellOpensItsEvents(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 120, 40, termenv.Ascii)
	c.keys("f")
	for i := 0; i < 60 && !strings.Contains(c.screen(), "▸ pivot: agent × decision"); i++ {
		c.keys("j")
	}
	c.keys("enter")
	p, ok := c.m.Facet().PivotShown()
	if !ok || len(p.Rows) == 0 || len(p.Cols) == 0 {
		t.Fatalf("no pivot:\n%s", c.screen())
	}
	if s := c.screen(); !strings.Contains(s, "agent × decision   deny") {
		t.Errorf("the pivot:\n%s", s)
	}
	want := p.Cells[0][0]
	c.keys("enter")
	n, known := c.m.Timeline().Hits()
	if !known || int64(n) != want {
		t.Errorf("the cell %s × %s counts %d; the timeline shows %d hits", p.Rows[0], p.Cols[0], want, n)
	}
	for _, ev := range c.m.Timeline().Rows() {
		if ev.Agent != p.Rows[0] {
			t.Errorf("a row of %s in the cell of %s", ev.Agent, p.Rows[0])
		}
	}
}
