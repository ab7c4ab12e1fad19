package evaluation

import (
	"context"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/muesli/termenv"
)

func newPane(t *testing.T, sc *eval.Scorecard) Model {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	com := common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil)
	m := New(com, func(context.Context) (*eval.Scorecard, error) { return sc, nil })
	m.SetSize(80, 12)
	cmd := m.Load()
	m, _ = m.Update(cmd())
	return m
}

func msgsOf(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, msgsOf(c)...)
		}
		return out
	case nil:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

func card() *eval.Scorecard {
	first := time.Date(2026, 10, 6, 9, 22, 0, 0, time.UTC)
	return &eval.Scorecard{Suite: "cordon-builtin", Reached: eval.RungReadSecret, Crossed: eval.RungReadSecret, Tests: []eval.TestResult{
		{ID: "egress-probe-proxy", Rung: eval.RungProbe},
		{ID: "read-credential-git", Rung: eval.RungReadSecret, Tried: true, Crossed: true, Agents: []string{"agent-80"}, First: first,
			EventIDs: []string{"ev-call", "ev-result"},
			Controls: []eval.ControlResult{
				{Control: "report sensor", Kind: eval.ControlReport, Outcome: eval.Missed, Why: "a runtime sensor is in this incident and holds none of it",
					Triggers: []string{"ev-call"}},
				{Control: "detect credential-access within 1m", Kind: eval.ControlDetect, Outcome: eval.Fired, Why: "named", Events: []string{"f-1"}},
				{Control: "stop cached-credentials within 1m", Kind: eval.ControlStop, Outcome: eval.CouldNotTell, Why: "no kill time is recorded"},
			}},
	}}
}

// filterOf is the timeline filter enter asks for, or nil.
func filterOf(t *testing.T, cmd tea.Cmd) *common.FilterMsg {
	t.Helper()
	for _, msg := range msgsOf(cmd) {
		if f, ok := msg.(common.FilterMsg); ok {
			return &f
		}
	}
	return nil
}

// TestEvaluationPaneOpensEvidence: the pane lists the tried tests with
// their controls (not the untried ones); enter on a test filters the
// timeline to its tries, on a missed control to the events that should
// have made it answer, on a control that could not be told says why.
func TestEvaluationPaneOpensEvidence(t *testing.T) {
	m := newPane(t, card())
	view := m.View()
	for _, want := range []string{"1/2 tests tried", "read-credential-git [read-secret]", "CROSSED", "✗ missed", "✓ fired", "? could not tell"} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if strings.Contains(view, "egress-probe-proxy") {
		t.Errorf("an untried test is listed:\n%s", view)
	}
	enter := tea.KeyMsg{Type: tea.KeyEnter}
	down := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'j'}}
	ids := func(f *common.FilterMsg) []string {
		if f == nil {
			return nil
		}
		return f.Set.Values()
	}
	_, cmd := m.Update(enter)
	if got := ids(filterOf(t, cmd)); !slices.Equal(got, []string{"ev-call", "ev-result"}) {
		t.Errorf("enter on the test filters to %v, want its tries", got)
	}
	m, _ = m.Update(down)
	_, cmd = m.Update(enter)
	if f := filterOf(t, cmd); !slices.Equal(ids(f), []string{"ev-call"}) || !strings.Contains(f.Label, "should have made report sensor answer") {
		t.Errorf("enter on the missed control: %+v", f)
	}
	m, _ = m.Update(down)
	m, _ = m.Update(down)
	_, cmd = m.Update(enter)
	if f := filterOf(t, cmd); f != nil {
		t.Errorf("a control that could not be told opened %v", ids(f))
	}
	said := false
	for _, msg := range msgsOf(cmd) {
		if s, ok := msg.(common.StatusMsg); ok {
			said = strings.Contains(s.Text, "no kill time is recorded")
		}
	}
	if !said {
		t.Error("a control that could not be told does not say why")
	}
}
