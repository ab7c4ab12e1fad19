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
	return k.HelpFirst([]key.Binding{common.Relabel(k.Open, "filter timeline to evidence"), common.Relabel(k.Back, "back"),
		common.Relabel(k.Assist, "assistant"), k.NextPane, k.Search, k.Help, k.Quit})
}

// FullHelp adds nothing to the help screen: the pane's keys are shared.
func (m Model) FullHelp() [][]key.Binding { return nil }
