package timeline

import "github.com/charmbracelet/bubbles/key"

// ShortHelp is the status bar's help with the timeline focused: the
// console's own keys, which start here.
func (m Model) ShortHelp() []key.Binding { return m.com.Keys.HelpFirst(m.com.Keys.ShortHelp()) }

// FullHelp adds nothing to the help screen: the timeline's keys (moving,
// search, n/N, f, marks) are the console's shared ones.
func (m Model) FullHelp() [][]key.Binding { return nil }
