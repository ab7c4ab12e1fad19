package search

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/common"
)

// SubmitMsg carries the query the responder ran (empty: clear the search).
type SubmitMsg struct{ Query string }

// CancelMsg says the bar was closed without running anything.
type CancelMsg struct{}

// Model is the search bar.
type Model struct {
	com     common.Common
	input   textinput.Model
	open    bool
	history []string // oldest first
	hpos    int      // index into history while browsing; len(history) = the draft
	draft   string
	// selected says the text shown is the previous query, selected as in
	// lnav: a key that types replaces it, an arrow keeps it to edit.
	selected bool
}

// New returns a closed search bar.
func New(com common.Common) Model {
	in := common.NewInput(com.Styles, "/", "agent:agent-7 decision:deny   curl OR wget   dst_host:*.example.com", 4096)
	return Model{com: com, input: in}
}

// SetSize sets the bar's width.
func (m *Model) SetSize(w int) {
	m.com = m.com.SetSize(w, 1)
	m.input.Width = max(w-3, 1)
}

// IsOpen reports whether the bar has focus.
func (m Model) IsOpen() bool { return m.open }

// Value is the text being edited.
func (m Model) Value() string { return m.input.Value() }

// History returns the queries run so far, oldest first.
func (m Model) History() []string { return m.history }

// SetHistory replaces the history with the workspace's (loaded at open,
// merged with other consoles' after each search). While the bar is open
// the position is kept at the draft.
func (m *Model) SetHistory(list []string) {
	m.history = incident.MergeHistory(list)
	if m.open {
		m.hpos = len(m.history)
	}
}

// Open focuses the bar with the current search, or else the previous
// one, selected: typing replaces it, ← or → keeps it to edit, ↑ recalls
// older queries.
func (m *Model) Open(current string) tea.Cmd {
	m.open = true
	m.hpos, m.draft = len(m.history), current
	if n := len(m.history); n > 0 && (current == "" || current == m.history[n-1]) {
		// the bar is on the newest query: ↑ goes to the one before it
		current, m.hpos, m.draft = m.history[n-1], n-1, ""
	}
	m.input.SetValue(current)
	m.input.CursorEnd()
	m.selected = current != ""
	return m.input.Focus()
}

// Selected reports whether the text shown is still selected (for tests).
func (m Model) Selected() bool { return m.selected }

// replaceSelection applies a key to a selected previous query: a key that
// types starts a new query, one that deletes empties the bar, others
// (arrows, home, end) keep the text to edit.
func (m *Model) replaceSelection(k tea.KeyMsg) (done bool) {
	m.selected = false
	switch k.Type {
	case tea.KeyRunes, tea.KeySpace:
		m.input.SetValue("")
	case tea.KeyBackspace, tea.KeyDelete, tea.KeyCtrlU, tea.KeyCtrlW:
		m.input.SetValue("")
		return true
	}
	return false
}

func (m *Model) close() {
	m.open, m.selected = false, false
	m.input.Blur()
}

// Update edits the query; enter submits it, esc closes the bar.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if !m.open {
		return m, nil
	}
	if k, ok := msg.(tea.KeyMsg); ok {
		keys := m.com.Keys
		switch {
		case key.Matches(k, keys.Submit):
			q := strings.TrimSpace(m.input.Value())
			m.remember(q)
			m.close()
			return m, common.Send(SubmitMsg{Query: q})
		case key.Matches(k, keys.Back):
			m.close()
			return m, common.Send(CancelMsg{})
		case key.Matches(k, keys.HistoryUp):
			m.browse(-1)
			return m, nil
		case key.Matches(k, keys.HistoryDown):
			m.browse(1)
			return m, nil
		case m.selected:
			if m.replaceSelection(k) {
				return m, nil
			}
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// browse steps through the history; stepping past the newest returns to
// what was being typed.
func (m *Model) browse(d int) {
	m.selected = false
	if m.hpos == len(m.history) {
		m.draft = m.input.Value()
	}
	m.hpos = min(max(m.hpos+d, 0), len(m.history))
	if m.hpos == len(m.history) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.history[m.hpos])
	}
	m.input.CursorEnd()
}

// remember makes q the newest query, once: the workspace's history is
// merged in when its write returns.
func (m *Model) remember(q string) {
	m.history = incident.MergeHistory(append(m.history, q))
}

// View renders the bar; a selected previous query shows reversed.
func (m Model) View() string {
	if m.selected {
		st := m.com.Styles
		v := common.Fit(m.input.Value(), max(m.com.Width-2, 1))
		hint := st.Dim.Render("  (type to replace, ← → to edit, ↑ older)")
		return common.PadRight(st.Prompt.Render(m.input.Prompt)+st.Selection.Render(v)+hint, m.com.Width)
	}
	return common.PadRight(m.input.View(), m.com.Width)
}
