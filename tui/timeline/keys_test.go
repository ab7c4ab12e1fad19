package timeline

import (
	"context"
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/tui/common"
)

// TestMarkWithNothingSelectedSaysSo: m pressed before the rows have loaded
// (or on an empty timeline) says there is nothing to mark, instead of
// doing nothing.
func TestMarkWithNothingSelectedSaysSo(t *testing.T) {
	com := common.New(context.Background(), common.DefaultStyles(lipgloss.NewRenderer(io.Discard), true), common.DefaultKeyMap(), nil).SetSize(80, 24)
	m := New(com, nil)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'m'}})
	if cmd == nil {
		t.Fatal("m on an empty timeline gave no message")
	}
	st, ok := cmd().(common.StatusMsg)
	if !ok || st.Text != "no event selected to mark" {
		t.Fatalf("m on an empty timeline: %#v", cmd())
	}
}
