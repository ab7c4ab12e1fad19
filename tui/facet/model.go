package facet

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// maxValues is how many values a facet lists, most frequent first.
const maxValues = 50

type valuesMsg struct {
	seq    int
	values []evidence.Count
	err    error
}

// Model is the facet picker.
type Model struct {
	com   common.Common
	store evidence.Reader

	open    bool
	query   evidence.Query
	fields  []string
	field   string // chosen field; empty while picking one
	values  []evidence.Count
	loading bool
	err     error
	seq     int
	cur     int
	top     int

	// pivotOn shows pivot, a count over two fields; pcol is the column
	// under the cursor (cur is its row).
	pivotOn bool
	pivot   Pivot
	pcol    int
}

// New returns a closed picker.
func New(com common.Common, store evidence.Reader) Model {
	return Model{com: com, store: store, fields: evidence.FacetFields()}
}

// SetSize sets the picker's size.
func (m *Model) SetSize(w, h int) { m.com = m.com.SetSize(w, h) }

// IsOpen reports whether the picker has focus.
func (m Model) IsOpen() bool { return m.open }

// Open starts picking a field for the current query.
func (m *Model) Open(query evidence.Query) {
	m.open, m.query, m.field, m.values, m.err, m.cur, m.top = true, query, "", nil, nil, 0, 0
	m.pivotOn = false
}

// PivotShown is the pivot on screen, if any (for tests).
func (m Model) PivotShown() (Pivot, bool) { return m.pivot, m.pivotOn && !m.loading }

// Close closes the picker.
func (m *Model) Close() { m.open = false }

func (m *Model) pick(field string) tea.Cmd {
	m.field, m.values, m.err, m.loading, m.cur, m.top = field, nil, nil, true, 0, 0
	m.seq++
	ctx, st, seq, q := m.com.Ctx, m.store, m.seq, m.query
	return m.com.Cmd(func() tea.Msg {
		v, err := st.Facet(ctx, q, time.Time{}, time.Time{}, field, maxValues)
		return valuesMsg{seq: seq, values: v, err: err}
	})
}

// Update handles the picker's keys and the facet reply.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case valuesMsg:
		if msg.seq == m.seq {
			m.loading, m.values, m.err = false, msg.values, msg.err
		}
		return m, nil
	case pivotMsg:
		if msg.seq == m.seq {
			m.loading, m.pivot, m.err = false, msg.p, msg.err
		}
		return m, nil
	case tea.MouseMsg:
		if m.open {
			m.cur, _ = m.com.Keys.MoveCursor(msg, m.cur, m.count(), m.listHeight())
			m.clamp()
		}
		return m, nil
	case tea.KeyMsg:
		if !m.open {
			return m, nil
		}
		k := m.com.Keys
		if m.pivotOn {
			return m.pivotKey(msg)
		}
		if m.field != "" && key.Matches(msg, k.Exclude) {
			return m.choose(true)
		}
		if cur, moved := k.MoveCursor(msg, m.cur, m.count(), m.listHeight()); moved {
			m.cur = cur
			m.clamp()
			return m, nil
		}
		switch {
		case key.Matches(msg, k.Back):
			if m.field != "" {
				i := indexOf(m.fields, m.field)
				m.field, m.values, m.cur, m.top = "", nil, i, 0
				m.seq++
			} else {
				m.open = false
			}
		case key.Matches(msg, k.Open):
			return m.choose(false)
		}
		m.clamp()
	}
	return m, nil
}

// choose picks the field (or pivot) under the cursor, or adds its value
// to the filter: as a clause, or excluded (NOT) when exclude.
func (m Model) choose(exclude bool) (Model, tea.Cmd) {
	if m.field == "" {
		switch {
		case m.cur < len(m.fields):
			cmd := m.pick(m.fields[m.cur])
			return m, cmd
		case m.cur < len(m.fields)+len(pivots):
			p := pivots[m.cur-len(m.fields)]
			m.field = p[0] + " × " + p[1]
			cmd := m.pickPivot(p[0], p[1])
			return m, cmd
		}
		return m, nil
	}
	if m.cur >= len(m.values) {
		return m, nil
	}
	v := m.values[m.cur].Value
	m.open = false
	clause, verb := evidence.Term(m.field, v), "filter += "
	if exclude {
		clause, verb = evidence.Not(clause), "filter -= "
	}
	return m, tea.Batch(
		common.Send(common.FilterMsg{Add: clause}),
		common.Send(common.StatusMsg{Text: verb + common.Clip(clause.String(), 60)}))
}

func (m *Model) count() int {
	if m.field == "" {
		return len(m.fields) + len(pivots)
	}
	return len(m.values)
}

func (m *Model) listHeight() int { return max(m.com.Height-2, 1) }

func (m *Model) clamp() {
	m.cur, m.top = common.Scroll(m.cur, m.top, m.count(), m.listHeight())
}

func indexOf(l []string, s string) int {
	for i, v := range l {
		if v == s {
			return i
		}
	}
	return 0
}

// View renders the picker over the pane area.
func (m Model) View() string {
	st := m.com.Styles
	w, h := m.com.Width, m.com.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	scope := "all events"
	if !m.query.IsAll() {
		scope = m.query.String()
	}
	var title string
	switch {
	case m.field == "":
		title = "FILTER BY FIELD  pick a field or a pivot (enter), esc closes"
	case m.pivotOn:
		title = fmt.Sprintf("PIVOT %s  in %s (←→ ↑↓ move, enter shows a cell's events, x excludes them, esc back)", m.field, scope)
	default:
		title = fmt.Sprintf("FILTER BY %s  values in %s (enter adds, x or - excludes, esc back)", m.field, scope)
	}
	out := []string{st.Section.Render(common.Fit(title, w)), ""}
	if m.pivotOn {
		switch {
		case m.loading:
			out = append(out, st.Dim.Render("  counting…"))
		case m.err != nil:
			out = append(out, st.StatusError.Render(common.FitMessage("  error: "+m.err.Error(), w)))
		case len(m.pivot.Rows) == 0:
			out = append(out, st.Dim.Render(common.Fit("  no events to pivot in "+scope, w)))
		default:
			out = append(out, m.pivotView(w)...)
		}
		for len(out) < h {
			out = append(out, "")
		}
		return strings.Join(out[:h], "\n")
	}
	switch {
	case m.field != "" && m.loading:
		out = append(out, st.Dim.Render("  counting…"))
	case m.field != "" && m.err != nil:
		out = append(out, st.StatusError.Render(common.FitMessage("  error: "+m.err.Error(), w)))
	case m.field != "" && len(m.values) == 0:
		out = append(out, st.Dim.Render(common.Fit("  no values of "+m.field+" in "+scope, w)))
	}
	end := min(m.top+m.listHeight(), m.count())
	for i := m.top; i < end; i++ {
		var s string
		if m.field == "" && i >= len(m.fields) {
			p := pivots[i-len(m.fields)]
			s = "pivot: " + p[0] + " × " + p[1]
		} else if m.field == "" {
			s = m.fields[i]
		} else {
			v := m.values[i]
			s = fmt.Sprintf("%9s  %s", common.Count(v.Count), common.Fit(v.Value, max(w-14, 4)))
		}
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
