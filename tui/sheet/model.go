package sheet

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// Row is one line of a sheet; a row with an event opens it.
type Row struct {
	Text  string
	Event *evidence.Event
}

// OpenMsg asks the root to show a row's event in the timeline.
type OpenMsg struct{ Event evidence.Event }

// Model is the sheet; closed until Show.
type Model struct {
	com      common.Common
	open     bool
	title    string
	rows     []Row
	cur, top int
}

// New returns a closed sheet.
func New(com common.Common) Model { return Model{com: com} }

// SetSize sets the sheet's size.
func (m *Model) SetSize(w, h int) { m.com = m.com.SetSize(w, h) }

// IsOpen reports whether the sheet is shown.
func (m Model) IsOpen() bool { return m.open }

// Title is the sheet's title.
func (m Model) Title() string { return m.title }

// Rows are the sheet's rows (for tests).
func (m Model) Rows() []Row { return m.rows }

// Show opens the sheet with rows, the cursor on the first row at or after
// sel (the row nearest the responder's place).
func (m *Model) Show(title string, rows []Row, sel int) {
	m.open, m.title, m.rows = true, title, rows
	m.cur, m.top = min(max(sel, 0), max(len(rows)-1, 0)), 0
	m.clamp()
}

// Refresh replaces what an open sheet shows, the cursor kept on its
// row's place (a list that grew or changed as the responder reads it).
func (m *Model) Refresh(title string, rows []Row) {
	m.title, m.rows = title, rows
	m.cur = min(m.cur, max(len(rows)-1, 0))
	m.clamp()
}

func (m *Model) listHeight() int { return max(m.com.Height-2, 1) }

func (m *Model) clamp() {
	m.cur, m.top = common.Scroll(m.cur, m.top, len(m.rows), m.listHeight())
}

// Update moves the cursor; enter opens a row's event, esc (or q) closes.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if !m.open {
		return m, nil
	}
	k := m.com.Keys
	switch msg := msg.(type) {
	case tea.MouseMsg:
		m.cur, _ = k.MoveCursor(msg, m.cur, len(m.rows), m.listHeight())
		m.clamp()
	case tea.KeyMsg:
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.rows), m.listHeight()); moved {
			m.cur = cur
			m.clamp()
			return m, nil
		}
		switch {
		case key.Matches(msg, k.Back, k.Quit):
			m.open = false
		case key.Matches(msg, k.Open):
			if m.cur < len(m.rows) && m.rows[m.cur].Event != nil {
				m.open = false
				return m, common.Send(OpenMsg{Event: *m.rows[m.cur].Event})
			}
		}
	}
	return m, nil
}

// View renders the sheet over the pane area.
func (m Model) View() string {
	st := m.com.Styles
	w, h := m.com.Width, m.com.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	out := []string{st.Section.Render(common.Fit(m.title, w)), ""}
	if len(m.rows) == 0 {
		out = append(out, st.Dim.Render("  (none)"))
	}
	end := min(m.top+m.listHeight(), len(m.rows))
	for i := m.top; i < end; i++ {
		s := common.Fit(m.rows[i].Text, max(w-2, 1))
		if i == m.cur {
			out = append(out, st.RowSelected.Render(common.PadRight("▸ "+s, w)))
		} else {
			out = append(out, "  "+s)
		}
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out[:h], "\n")
}
