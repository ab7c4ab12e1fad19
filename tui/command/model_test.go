package command

import (
	"context"
	"io"
	"slices"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/tui/common"
)

func newLine() Model {
	r := lipgloss.NewRenderer(io.Discard)
	com := common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil)
	m := New(com, nil, nil)
	m.SetSize(80)
	return m
}

// run types line into the open command line and submits it.
func run(m Model, line string) Model {
	m.Open()
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(line)})
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	return m
}

// TestHistoryKeepsEachLineOnceMostRecentLast: a line run again moves to
// the end of the history rather than appearing twice, and ↑ walks back
// from the most recent.
func TestHistoryKeepsEachLineOnceMostRecentLast(t *testing.T) {
	m := newLine()
	for _, l := range []string{"files", "agents", "files", "journal"} {
		m = run(m, l)
	}
	if want := []string{"agents", "files", "journal"}; !slices.Equal(m.History(), want) {
		t.Errorf("history %q, want %q", m.History(), want)
	}
	m.Open()
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyUp})
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyUp})
	if m.Value() != "files" {
		t.Errorf("two lines back: %q, want files", m.Value())
	}
}
