package tui_test

import (
	"context"
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/muesli/termenv"
)

// s on an episode asks a reason and journals the suppression: the episode
// stays listed, marked; the agents screen counts it; another console on
// the workspace sees it; an observer is told why s does nothing.
func TestSuppressFromFindingsPane(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 120, 40, termenv.Ascii)
	c.keys("tab", "tab", "s")
	if c.m.Prompt().IsOpen() {
		t.Fatal("s on the agents screen opened a prompt")
	}
	if text, _ := c.m.Status(); !strings.Contains(text, "enter opens the agent's episodes") {
		t.Errorf("s on the agents screen: %q", text)
	}
	c.keys("enter")
	f, ok := c.m.Findings().Selected()
	if !ok {
		t.Fatal("no episode selected")
	}
	n := len(c.m.Findings().Findings())
	c.keys("s")
	if !c.m.Prompt().IsOpen() || !strings.Contains(c.m.Prompt().Ask().Prompt, "suppress "+f.Detector+" of "+f.Agent) {
		t.Fatalf("s on an episode: prompt open %v %q", c.m.Prompt().IsOpen(), c.m.Prompt().Ask().Prompt)
	}
	c.keys("enter") // no reason: nothing journaled
	sups, err := ws.Suppressions(context.Background())
	if err != nil || len(sups) != 0 {
		t.Fatalf("an empty reason journaled %v %v", sups, err)
	}
	c.keys("s", "q", "a", " ", "n", "o", "i", "s", "e", "enter") // q types a q in the input
	if c.quit {
		t.Fatal("q in the reason quit the console")
	}
	sups, err = ws.Suppressions(context.Background())
	if err != nil || len(sups) != 1 || sups[0].Reason != "qa noise" || sups[0].By != testActor || sups[0].Detector != f.Detector {
		t.Fatalf("suppressions %+v %v", sups, err)
	}
	if len(c.m.Findings().Findings()) != n || len(c.m.Findings().SuppressedBy(f.ID)) != 1 {
		t.Errorf("after the suppression: %d findings (was %d), covered by %v", len(c.m.Findings().Findings()), n, c.m.Findings().SuppressedBy(f.ID))
	}
	if s := c.screen(); !strings.Contains(s, "[suppressed "+sups[0].ID+"]") {
		t.Errorf("the episode is not marked:\n%s", s)
	}
	c.keys("esc")
	if s := c.screen(); !strings.Contains(s, "1 suppressed") {
		t.Errorf("the agents screen does not count it:\n%s", s)
	}

	// an observer's console on the same workspace sees it and cannot add one
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	h := caseOf(t, ws, incident.HandleOptions{ReadOnly: true, Actor: journal.Actor{Name: "eve", Via: journal.ViaSSH}})
	m := tui.New(h, tui.Options{Renderer: r, Ctx: context.Background(), JournalPoll: -1})
	o := &console{t: t, m: m}
	o.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	o.run(m.Init())
	o.keys("tab", "tab", "enter")
	if len(o.m.Findings().SuppressedBy(f.ID)) != 1 {
		t.Error("another console does not see the suppression")
	}
	o.keys("s")
	if text, _ := o.m.Status(); o.m.Prompt().IsOpen() || text != "read-only: observers cannot suppress" {
		t.Errorf("s in an observer's console: prompt %v, status %q", o.m.Prompt().IsOpen(), text)
	}
}
