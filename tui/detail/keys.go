package detail

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/cordon-ir/cordon/tui/common"
)

// ShortHelp is the status bar's help with the event pane focused.
func (m Model) ShortHelp() []key.Binding {
	k := m.com.Keys
	return k.HelpFirst([]key.Binding{common.Relabel(k.NextMatch, "next related"), common.Relabel(k.Open, "open event/group"), k.Back,
		k.Mark, k.Note, common.Relabel(k.Assist, "assistant on event"), k.NextPane, k.Help, k.Quit})
}

// FullHelp adds nothing to the help screen: the pane's keys are shared.
func (m Model) FullHelp() [][]key.Binding { return nil }
