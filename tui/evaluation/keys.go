package evaluation

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/cordon-ir/cordon/tui/common"
)

// ShortHelp is the status bar's help with the Evaluation pane focused.
func (m Model) ShortHelp() []key.Binding {
	k := m.com.Keys
	return k.HelpFirst([]key.Binding{common.Relabel(k.Open, "open its evidence on the timeline"), k.NextPane, k.Search, k.Help, k.Quit})
}

// FullHelp adds nothing to the help screen: the pane's keys are shared.
func (m Model) FullHelp() [][]key.Binding { return nil }
