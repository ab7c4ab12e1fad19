package sheet

import (
	"context"
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

func newSheet() Model {
	r := lipgloss.NewRenderer(io.Discard)
	m := New(common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil))
	m.SetSize(80, 24)
	return m
}

// TestSheetEscClosesEnterOpens: esc (back) closes the sheet, as it leaves
// every overlay; enter on a row with an event closes it and asks for the
// event; a row without one does nothing.
func TestSheetEscClosesEnterOpens(t *testing.T) {
	ev := evidence.Event{ID: "e7"}
	rows := []Row{{Text: "header"}, {Text: "e7 row", Event: &ev}}

	m := newSheet()
	m.Show("files", rows, 0)
	if m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEsc}); m.IsOpen() {
		t.Error("esc left the sheet open")
	}

	m.Show("files", rows, 0)
	m, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if !m.IsOpen() || cmd != nil {
		t.Error("enter on a row without an event did something")
	}
	m.Show("files", rows, 1)
	m, cmd = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if msg, ok := cmd().(OpenMsg); !ok || msg.Event.ID != "e7" || m.IsOpen() {
		t.Errorf("enter on the event's row: %+v, open %v", msg, m.IsOpen())
	}
}
