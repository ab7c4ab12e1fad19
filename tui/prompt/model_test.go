package prompt

import (
	"context"
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/tui/common"
)

func newPrompt() Model {
	r := lipgloss.NewRenderer(io.Discard)
	m := New(common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil))
	m.SetSize(80)
	return m
}

// TestAnswerIsTrimmedAndEscCancels: enter answers with the text typed,
// spaces around it dropped (a note of "  " is no note); esc cancels.
func TestAnswerIsTrimmedAndEscCancels(t *testing.T) {
	m := newPrompt()
	ask := common.Ask{Kind: common.AskNote, Prompt: "note: "}
	m.Open(ask)
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("  killed at 10:21  ")})
	m, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	a, ok := cmd().(common.AnswerMsg)
	if !ok || a.Value != "killed at 10:21" || a.Cancelled || a.Ask.Kind != common.AskNote || m.IsOpen() {
		t.Errorf("enter: %+v (open %v), want the trimmed note", a, m.IsOpen())
	}
	m.Open(ask)
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("half")})
	m, cmd = m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	if a, ok := cmd().(common.AnswerMsg); !ok || !a.Cancelled || m.IsOpen() {
		t.Errorf("esc: %+v (open %v), want cancelled", a, m.IsOpen())
	}
}
