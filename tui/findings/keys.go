package findings

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/cordon-ir/cordon/tui/common"
)

// ShortHelp is the status bar's help with the Findings pane focused.
func (m Model) ShortHelp() []key.Binding {
	k := m.com.Keys
	if !m.open {
		return k.HelpFirst([]key.Binding{common.Relabel(k.Open, "agent's episodes"), common.Relabel(k.Assist, "assistant"),
			k.NextPane, k.Search, k.Help, k.Quit})
	}
	// kept short: the help line cuts at 80 columns only when its "…" fits
	return k.HelpFirst([]key.Binding{common.Relabel(k.Open, "show evidence"), common.Relabel(k.Back, "back"),
		common.Relabel(k.Assist, "assistant"), common.Relabel(k.Suppress, "suppress"), k.NextPane, k.Search, k.Help, k.Quit})
}

// FullHelp adds the pane's own key to the help screen.
func (m Model) FullHelp() [][]key.Binding { return [][]key.Binding{{m.com.Keys.Suppress}} }
