package assistpane

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/cordon-ir/cordon/tui/common"
)

// ShortHelp is the status bar's help with the Assistant pane focused, for
// the state it is in: picking a task, asking before sending, waiting, or
// reading the answer.
func (m Model) ShortHelp() []key.Binding {
	k := m.com.Keys
	as := common.Relabel
	switch m.state {
	case stateConfirm:
		return []key.Binding{k.Yes, k.No, as(k.Back, "don't send")}
	case statePreparing, stateRunning:
		return []key.Binding{as(k.Back, "cancel the request")}
	case stateAnswer, stateFailed:
		if m.res.Suggestion != nil && m.res.Suggestion.Runnable() && m.state == stateAnswer {
			return k.HelpFirst([]key.Binding{as(k.Yes, "run the query"), as(k.Back, "tasks"), as(k.Open, "show cited events"), k.NextPane, k.Help})
		}
		return k.HelpFirst([]key.Binding{as(k.Open, "show cited events"), as(k.Down, "next claim"), as(k.Up, "previous claim"), as(k.Back, "tasks"), k.NextPane, k.Help})
	}
	return k.HelpFirst([]key.Binding{as(k.Open, "run task"), as(k.Down, "next task"), as(k.Up, "previous task"), k.NextPane, k.Help, k.Quit})
}

// FullHelp adds nothing to the help screen: y and n are asked for on the
// pane itself, and its other keys are shared.
func (m Model) FullHelp() [][]key.Binding { return nil }
