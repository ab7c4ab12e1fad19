package evaluation

import (
	"context"
	"errors"
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
	m := New(com, Source{Score: func(context.Context, string) (*eval.Scorecard, error) { return sc, nil }})
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

// TestEvaluationPaneScoresTheRunChosen: the pane scores first the run
// the case's configuration names, and r scores the next run id of the
// case's, then the whole case, each through the one scoring function; a
// run that cannot be scored leaves no other run's scorecard on screen.
func TestEvaluationPaneScoresTheRunChosen(t *testing.T) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	com := common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil)
	var asked []string
	src := Source{Run: "r-b",
		Runs: func(context.Context) ([]string, error) { return []string{"r-a", "r-b", "r-gone"}, nil },
		Score: func(_ context.Context, run string) (*eval.Scorecard, error) {
			asked = append(asked, run)
			if run == "r-gone" {
				return nil, errors.New("no such run")
			}
			sc := card()
			sc.Run = run
			return sc, nil
		}}
	m := New(com, src)
	m.SetSize(100, 12)
	m, _ = m.Update(m.Load()())
	rkey := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'r'}}
	step := func() {
		var cmd tea.Cmd
		m, cmd = m.Update(rkey)
		for _, msg := range msgsOf(cmd) {
			if lm, ok := msg.(loadedMsg); ok {
				m, _ = m.Update(lm)
			}
		}
	}
	if v := m.View(); m.Run() != "r-b" || !strings.Contains(v, "run r-b (r: next of 3)") {
		t.Errorf("first scored %q:\n%s", m.Run(), v)
	}
	step()
	if v := m.View(); m.Run() != "r-gone" || m.Scorecard() != nil || strings.Contains(v, "read-credential-git") || !strings.Contains(v, "run r-gone could not be scored") {
		t.Errorf("a run that cannot be scored: run %q, still showing:\n%s", m.Run(), v)
	}
	step()
	if v := m.View(); m.Run() != "" || !strings.Contains(v, "the whole case (r: next of 3)") {
		t.Errorf("after the last run, the whole case: %q\n%s", m.Run(), v)
	}
	step()
	if !slices.Equal(asked, []string{"r-b", "r-gone", "", "r-a"}) || m.Scorecard().Run != "r-a" {
		t.Errorf("scored %q, showing %q", asked, m.Scorecard().Run)
	}
}

// TestEvaluationPaneNamesTheHarnessKill: enter on a stop control that
// could not tell because no kill time is recorded names the kill the
// harness's ledger recorded of the whole subject and where to record it;
// with an agent of the subject it did not kill, or a kill time recorded,
// it says why as before.
func TestEvaluationPaneNamesTheHarnessKill(t *testing.T) {
	kill := time.Date(2026, 7, 21, 10, 47, 21, 2e6, time.UTC)
	for _, tc := range []struct {
		name     string
		subject  []string
		recorded time.Time
		want     string
	}{
		{"killed", []string{"agent-7"}, time.Time{}, "no kill time; the ledger killed agent-7 at 10:47:21.002: d on contain.stop offers it"},
		{"one agent not killed", []string{"agent-7", "agent-3"}, time.Time{}, "could not tell: no kill time is recorded"},
		{"a kill recorded", []string{"agent-7"}, kill, "could not tell: no kill time is recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := lipgloss.NewRenderer(io.Discard)
			r.SetColorProfile(termenv.Ascii)
			com := common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil)
			sc := card()
			sc.Subject, sc.Kill = tc.subject, tc.recorded
			asked := false
			m := New(com, Source{
				Score: func(context.Context, string) (*eval.Scorecard, error) { return sc, nil },
				Kills: func(_ context.Context, subject []string, _ string) (map[string]time.Time, error) {
					asked = true
					return map[string]time.Time{"agent-7": kill}, nil
				}})
			m.SetSize(80, 12)
			m, _ = m.Update(m.Load()())
			if asked != tc.recorded.IsZero() {
				t.Errorf("kills asked %v with a kill time recorded %v", asked, !tc.recorded.IsZero())
			}
			for range 3 {
				m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'j'}})
			}
			_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
			said := ""
			for _, msg := range msgsOf(cmd) {
				if s, ok := msg.(common.StatusMsg); ok {
					said = s.Text
				}
			}
			if !strings.Contains(said, tc.want) {
				t.Errorf("enter on the stop control says %q, want %q", said, tc.want)
			}
		})
	}
}
