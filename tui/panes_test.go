package tui

import (
	"context"
	"testing"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// TestEveryPaneOwnsItsHelp: the status bar's help comes from the focused
// pane, every binding it shows says what it does, and the help screen's
// last column is what the panes add (the Findings', the Playbook's and
// the Journal's).
func TestEveryPaneOwnsItsHelp(t *testing.T) {
	h, err := incidenttest.New(t).Handle(incident.HandleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := New(h, Options{Ctx: context.Background(), JournalPoll: -1})
	for p, def := range panes() {
		m.focus = pane(p)
		bs := m.focused().ShortHelp()
		if len(bs) == 0 {
			t.Errorf("%s: no help", def.name)
		}
		for _, b := range bs {
			if b.Help().Key == "" || b.Help().Desc == "" {
				t.Errorf("%s: a binding without help: %+v", def.name, b.Keys())
			}
		}
	}
	groups := m.fullHelp()
	own := groups[len(groups)-1]
	k := m.com.Keys
	if len(own) != 10 || own[0].Help() != k.Suppress.Help() || own[1].Help() != k.Start.Help() || own[len(own)-2].Help() != k.TypeFilter.Help() ||
		own[len(own)-1].Help() != k.EvalRun.Help() {
		t.Errorf("the panes' column: %d bindings", len(own))
	}
}
