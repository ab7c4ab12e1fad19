package timeline

import (
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// column is one column of the list; width 0 takes what is left.
type column struct {
	title string
	width int
	value func(ev evidence.Event) string
}

// columns fits the columns to the pane's width: the narrowest keeps time,
// agent, kind, verdict and message; wider ones add target and source.
func (m *Model) columns() []column {
	w := m.com.Width
	clock := m.clock
	cols := []column{{"TIME", clock.Width(), func(ev evidence.Event) string { return clock.Format(ev.Time) }}}
	if w >= 120 {
		cols = append(cols, column{"SOURCE", 6, func(ev evidence.Event) string { return ev.Source }})
	}
	agentW := 9
	if w >= 100 {
		agentW = 11
	}
	if w >= 160 {
		// room to spare: as wide as the longest agent name (counted at
		// ingest, so that scrolling never moves the columns)
		agentW = max(agentW, min(m.agentW, 24))
	}
	cols = append(cols,
		column{"AGENT", agentW, func(ev evidence.Event) string { return ev.Who() }},
		column{"KIND", 15, func(ev evidence.Event) string { return ev.Kind }},
		column{"VERDICT", 5, nil},
	)
	if w >= 100 {
		tw := 22
		if w >= 160 {
			tw = 34
		}
		cols = append(cols, column{"TARGET", tw, evidence.Event.Target})
	}
	cols = append(cols, column{"MESSAGE", 0, func(ev evidence.Event) string { return ev.Message }})
	used := 2
	for _, c := range cols {
		used += c.width + 1
	}
	cols[len(cols)-1].width = max(w-used, 8)
	return cols
}

// View renders the sparkline, the column header and the visible rows.
func (m Model) View() string {
	st := m.com.Styles
	h, w := m.com.Height, m.com.Width
	if h <= 0 || w <= 0 {
		return ""
	}
	lines := make([]string, 0, h)
	if m.chrome() >= 2 {
		lines = append(lines, m.sparkView())
	}
	if m.chrome() == 3 {
		line := m.span.OutsideLine() + ": search " + m.span.Query().String() + " to see them"
		lines = append(lines, st.Warn.Render(common.Fit(line, w)))
	}
	cols := m.columns()
	var hdr strings.Builder
	hdr.WriteString("  ")
	for i, c := range cols {
		if i > 0 {
			hdr.WriteByte(' ')
		}
		title := c.title
		if title == "VERDICT" {
			title = "VERD."
		}
		hdr.WriteString(common.Pad(title, c.width))
	}
	lines = append(lines, st.ColHeader.Render(common.PadRight(hdr.String(), w)))
	if len(m.rows) == 0 {
		lines = append(lines, st.Dim.Render(common.Fit(m.emptyText(), w)))
	}
	end := min(m.top+m.visible(), len(m.rows))
	for i := m.top; i < end; i++ {
		lines = append(lines, m.row(m.rows[i], i == m.cur, cols, w))
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines[:h], "\n")
}

func (m Model) emptyText() string {
	switch {
	case m.loading:
		return "  loading…"
	case !m.query.IsAll() && !m.filter.IsAll() && m.search != "":
		// the hint first: the query text can be long, the screen narrow
		return "  no events: the search only looks within the filter (esc clears the search, esc again the filter) — " + m.QueryText()
	case !m.query.IsAll():
		return "  no events match (esc clears it) — " + m.QueryText()
	}
	return "  no events yet"
}

// row renders one event. Every value is made safe and cut to its cell by
// common.Pad; the selected row is one style, so that its colour never hides
// the verdict label it carries.
func (m Model) row(ev evidence.Event, selected bool, cols []column, w int) string {
	st := m.com.Styles
	gutter := " "
	if selected {
		gutter = "▸"
	}
	markGlyph := " "
	if m.marks[ev.ID] {
		markGlyph = "*"
	}
	var b strings.Builder
	if selected && len(m.hl) > 0 {
		// the hits stay marked under the cursor: a row styled whole would
		// hide them
		b.WriteString(st.RowSelected.Render(gutter + markGlyph))
		for i, c := range cols {
			if i > 0 {
				b.WriteString(st.RowSelected.Render(" "))
			}
			if c.value == nil {
				label, _ := st.Decision(ev)
				b.WriteString(st.RowSelected.Render(common.Pad(label, c.width)))
				continue
			}
			b.WriteString(common.Highlight(common.Pad(c.value(ev), c.width), m.hl, st.RowSelected, st.MatchSelected))
		}
		if n := w - lipgloss.Width(b.String()); n > 0 {
			b.WriteString(st.RowSelected.Render(strings.Repeat(" ", n)))
		}
		return b.String()
	}
	if selected {
		b.WriteString(gutter + markGlyph)
		for i, c := range cols {
			if i > 0 {
				b.WriteByte(' ')
			}
			if c.value == nil {
				label, _ := st.Decision(ev)
				b.WriteString(common.Pad(label, c.width))
				continue
			}
			b.WriteString(common.Pad(c.value(ev), c.width))
		}
		return st.RowSelected.Render(common.PadRight(b.String(), w))
	}
	b.WriteString(gutter)
	b.WriteString(st.Mark.Render(markGlyph))
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(' ')
		}
		var cell string
		var style lipgloss.Style
		if c.value == nil {
			var label string
			label, style = st.Decision(ev)
			cell = common.Pad(label, c.width)
		} else {
			cell, style = common.Pad(c.value(ev), c.width), st.Row
		}
		if c.title == "TIME" {
			b.WriteString(st.Dim.Render(cell))
			continue
		}
		if c.value != nil && len(m.hl) > 0 {
			b.WriteString(common.Highlight(cell, m.hl, style, st.Match))
			continue
		}
		b.WriteString(style.Render(cell))
	}
	return b.String()
}
