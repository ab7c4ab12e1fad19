package search

import (
	"context"
	"io"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/tui/common"
)

func newBar() Model {
	r := lipgloss.NewRenderer(io.Discard)
	com := common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil)
	m := New(com)
	m.SetSize(80)
	m.SetHistory([]string{"nohup", "curl"})
	return m
}

func typeKeys(m Model, keys ...tea.KeyMsg) Model {
	for _, k := range keys {
		m, _ = m.Update(k)
	}
	return m
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

func TestOpenShowsThePreviousQuerySelected(t *testing.T) {
	m := newBar()
	m.Open("")
	if m.Value() != "curl" || !m.Selected() {
		t.Fatalf("open: value %q selected %v, want the previous query selected", m.Value(), m.Selected())
	}
	if m = typeKeys(m, runes("wget")); m.Value() != "wget" {
		t.Errorf("typing over the selection: %q, want wget", m.Value())
	}

	m.Open("")
	if m = typeKeys(m, tea.KeyMsg{Type: tea.KeyLeft}, runes("x")); m.Value() != "curxl" {
		t.Errorf("← then x: %q, want the query kept and edited", m.Value())
	}

	m.Open("")
	if m = typeKeys(m, tea.KeyMsg{Type: tea.KeyBackspace}); m.Value() != "" {
		t.Errorf("backspace on the selection: %q, want it cleared", m.Value())
	}

	m.Open("")
	if m = typeKeys(m, tea.KeyMsg{Type: tea.KeyUp}); m.Value() != "nohup" || m.Selected() {
		t.Errorf("↑: %q (selected %v), want the older query to edit", m.Value(), m.Selected())
	}
}
