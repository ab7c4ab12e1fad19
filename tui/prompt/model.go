package prompt

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// maxInput bounds what one answer may hold: a note is a line, not a file.
const maxInput = 2000

// Model is the input; closed until Open.
type Model struct {
	com   common.Common
	input textinput.Model
	ask   common.Ask
	open  bool
}

// New returns a closed input.
func New(com common.Common) Model {
	in := common.NewInput(com.Styles, "> ", "", maxInput)
	return Model{com: com, input: in}
}

// SetSize sets the input's width.
func (m *Model) SetSize(w int) {
	m.com = m.com.SetSize(w, 1)
	m.fitWidth()
}

// fitWidth shows as much of the question as leaves the answer room to be
// seen: at least a third of the line (20 cells at the least). A question
// longer than that is cut with an ellipsis; the typed text never is.
func (m *Model) fitWidth() {
	w := m.com.Width
	q := evidence.Printable(m.ask.Prompt)
	if !m.open {
		q = m.input.Prompt
	}
	if room := w - max(20, w/3); ansi.StringWidth(q) > room {
		q = ansi.Truncate(strings.TrimRight(q, " "), max(room-1, 1), "…") + " "
	}
	m.input.Prompt = q
	m.input.Width = max(w-ansi.StringWidth(q)-2, 1)
}

// IsOpen reports whether the input has focus.
func (m Model) IsOpen() bool { return m.open }

// Ask is the question being asked.
func (m Model) Ask() common.Ask { return m.ask }

// Value is the text typed so far.
func (m Model) Value() string { return m.input.Value() }

// Open asks a. The prompt text is made safe: it may name an event id or
// step id that came from evidence or a playbook file.
func (m *Model) Open(a common.Ask) tea.Cmd {
	m.ask, m.open = a, true
	m.input.Placeholder = a.Placeholder
	m.input.SetValue(a.Value)
	m.input.CursorEnd()
	m.fitWidth()
	return m.input.Focus()
}

func (m *Model) close() {
	m.open = false
	m.input.Blur()
}

// Update edits the text: enter answers, esc cancels. Every key stays here
// while the input is open (q types a q).
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if !m.open {
		return m, nil
	}
	if k, ok := msg.(tea.KeyMsg); ok {
		keys := m.com.Keys
		switch {
		case key.Matches(k, keys.Submit):
			v := strings.TrimSpace(m.input.Value())
			m.close()
			return m, common.Send(common.AnswerMsg{Ask: m.ask, Value: v})
		case key.Matches(k, keys.Back):
			m.close()
			return m, common.Send(common.AnswerMsg{Ask: m.ask, Cancelled: true})
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// View renders the input line. The typed text is shown as
// PrintableMessage: a pasted escape sequence must not reach the terminal,
// and a backslash the responder types shows as one, where the cursor is.
func (m Model) View() string {
	in := m.input
	in.SetValue(evidence.PrintableMessage(in.Value()))
	return common.PadRight(in.View(), m.com.Width)
}
