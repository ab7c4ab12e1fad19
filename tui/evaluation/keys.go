package evaluation

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/cordon-ir/cordon/tui/common"
)

// ShortHelp is the status bar's help with the Evaluation pane focused.
func (m Model) ShortHelp() []key.Binding {
	k := m.com.Keys
	return k.HelpFirst([]key.Binding{common.Relabel(k.Open, "open its evidence on the timeline"), common.Relabel(k.EvalRun, "next run"),
		k.NextPane, k.Search, k.Help, k.Quit})
}

// FullHelp adds the key that picks the run scored.
func (m Model) FullHelp() [][]key.Binding { return [][]key.Binding{{m.com.Keys.EvalRun}} }
