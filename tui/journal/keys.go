package journal

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/cordon-ir/cordon/tui/common"
)

// ShortHelp is the status bar's help with the Journal pane focused.
func (m Model) ShortHelp() []key.Binding {
	k := m.com.Keys
	return k.HelpFirst([]key.Binding{common.Relabel(k.Open, "open event"), k.TypeFilter, k.NextPane, k.Search, k.Help, k.Quit})
}

// FullHelp is the pane's column of the help screen: its type filter.
func (m Model) FullHelp() [][]key.Binding { return [][]key.Binding{{m.com.Keys.TypeFilter}} }
