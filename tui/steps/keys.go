package steps

import (
	"github.com/charmbracelet/bubbles/key"
	"github.com/cordon-ir/cordon/tui/common"
)

// ShortHelp is the status bar's help with the Playbook pane focused: the
// list's keys, or a step's once it is entered.
func (m Model) ShortHelp() []key.Binding {
	k := m.com.Keys
	as := common.Relabel
	if m.inDetail {
		return k.HelpFirst([]key.Binding{as(k.Open, "open"), as(k.Toggle, "tick item"), as(k.Back, "back"), as(k.Start, "start"), as(k.Done, "done"),
			as(k.Skip, "skip"), as(k.Check, "check"), as(k.StepNote, "note")})
	}
	return k.HelpFirst([]key.Binding{as(k.Open, "open"), as(k.Start, "start"), as(k.Done, "done"), as(k.Skip, "skip"), as(k.Check, "check"),
		as(k.StepNote, "note"), k.Help})
}

// FullHelp is the pane's column of the help screen: working a step.
func (m Model) FullHelp() [][]key.Binding {
	k := m.com.Keys
	return [][]key.Binding{{k.Start, k.Done, k.Skip, k.Check, k.CheckAll, k.Toggle, k.StepNote}}
}
