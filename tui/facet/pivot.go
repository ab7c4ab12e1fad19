package facet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// Pivot is a count of events over two fields: the rows are the first
// field's most frequent values, the columns the second's.
type Pivot struct {
	Row, Col   string
	Rows, Cols []string
	// Cells[i][j] counts the events with Rows[i] and Cols[j].
	Cells [][]int64
}

// pivots are the pairs the picker offers after the fields: the ones
// responders cross first (who went where, who was refused).
var pivots = [][2]string{{"agent", "dst_host"}, {"agent", "decision"}, {"agent", "kind"}}

// Bounds of a pivot: rows and columns shown (each a facet query).
const (
	pivotRows = 12
	pivotCols = 8
)

type pivotMsg struct {
	seq int
	p   Pivot
	err error
}

// BuildPivot counts q's events over row × col: the top rows of row, and
// for each, its values of col; the columns are those with the most events
// over all rows.
func BuildPivot(ctx context.Context, st evidence.Reader, q evidence.Query, row, col string) (Pivot, error) {
	p := Pivot{Row: row, Col: col}
	rows, err := st.Facet(ctx, q, time.Time{}, time.Time{}, row, pivotRows)
	if err != nil {
		return p, err
	}
	per := make([]map[string]int64, 0, len(rows))
	total := map[string]int64{}
	for _, r := range rows {
		vs, err := st.Facet(ctx, evidence.And(q, evidence.Term(row, r.Value)), time.Time{}, time.Time{}, col, maxValues)
		if err != nil {
			return p, err
		}
		m := map[string]int64{}
		for _, v := range vs {
			m[v.Value] = v.Count
			total[v.Value] += v.Count
		}
		p.Rows = append(p.Rows, r.Value)
		per = append(per, m)
	}
	for v := range total {
		p.Cols = append(p.Cols, v)
	}
	slices.SortFunc(p.Cols, func(a, b string) int {
		if total[a] != total[b] {
			return int(total[b] - total[a])
		}
		return strings.Compare(a, b)
	})
	if len(p.Cols) > pivotCols {
		p.Cols = p.Cols[:pivotCols]
	}
	for _, m := range per {
		line := make([]int64, len(p.Cols))
		for j, c := range p.Cols {
			line[j] = m[c]
		}
		p.Cells = append(p.Cells, line)
	}
	return p, nil
}

func (m *Model) pickPivot(row, col string) tea.Cmd {
	m.pivot, m.pivotOn, m.err, m.loading, m.cur, m.pcol, m.top = Pivot{Row: row, Col: col}, true, nil, true, 0, 0, 0
	m.seq++
	ctx, st, seq, q := m.com.Ctx, m.store, m.seq, m.query
	return m.com.Cmd(func() tea.Msg {
		p, err := BuildPivot(ctx, st, q, row, col)
		return pivotMsg{seq: seq, p: p, err: err}
	})
}

// pivotKey moves over the pivot's cells; enter filters the timeline to a
// cell's events, x excludes them.
func (m Model) pivotKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	switch {
	case key.Matches(msg, k.Left):
		m.pcol = max(m.pcol-1, 0)
	case key.Matches(msg, k.Right):
		m.pcol = min(m.pcol+1, max(len(m.pivot.Cols)-1, 0))
	case key.Matches(msg, k.Back):
		m.pivotOn, m.field = false, ""
		m.cur, m.top = len(m.fields)+m.pivotIndex(), 0
		m.seq++
		m.clamp()
	case key.Matches(msg, k.Open, k.Exclude):
		if m.cur >= len(m.pivot.Rows) || m.pcol >= len(m.pivot.Cols) {
			return m, nil
		}
		clause := evidence.And(evidence.Term(m.pivot.Row, m.pivot.Rows[m.cur]), evidence.Term(m.pivot.Col, m.pivot.Cols[m.pcol]))
		verb := "filter += "
		if key.Matches(msg, k.Exclude) {
			clause, verb = evidence.Not(clause), "filter -= "
		}
		m.open = false
		return m, tea.Batch(common.Send(common.FilterMsg{Add: clause}),
			common.Send(common.StatusMsg{Text: verb + common.Clip(clause.String(), 60)}))
	default:
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.pivot.Rows), m.listHeight()-1); moved {
			m.cur = cur
			m.clamp()
		}
	}
	return m, nil
}

func (m Model) pivotIndex() int {
	for i, p := range pivots {
		if p[0] == m.pivot.Row && p[1] == m.pivot.Col {
			return i
		}
	}
	return 0
}

// pivotView draws the pivot: a row per value of the first field, a column
// per value of the second, the cursor on one cell.
func (m Model) pivotView(w int) []string {
	st := m.com.Styles
	p := m.pivot
	corner := p.Row + " × " + p.Col
	rowW := len([]rune(corner))
	for _, r := range p.Rows {
		rowW = max(rowW, len([]rune(r)))
	}
	rowW = min(rowW, max(w/3, 8))
	n := max(len(p.Cols), 1)
	// as wide as the widest value heading, within what the width allows
	colW := 6
	for _, c := range p.Cols {
		colW = max(colW, len([]rune(c)))
	}
	colW = min(colW, max((w-rowW-4)/n-1, 5), 24)
	var hdr strings.Builder
	hdr.WriteString("  " + common.Pad(corner, rowW) + " ")
	for _, c := range p.Cols {
		c = common.Fit(c, colW)
		hdr.WriteString(strings.Repeat(" ", max(colW-len([]rune(c)), 0)) + c + " ")
	}
	out := []string{st.ColHeader.Render(common.PadRight(hdr.String(), w))}
	end := min(m.top+m.listHeight()-1, len(p.Rows))
	for i := m.top; i < end; i++ {
		var b strings.Builder
		glyph := "  "
		if i == m.cur {
			glyph = "▸ "
		}
		b.WriteString(glyph + common.Pad(p.Rows[i], rowW) + " ")
		for j := range p.Cols {
			v := ""
			if c := p.Cells[i][j]; c > 0 {
				v = common.Count(c)
			}
			cell := fmt.Sprintf("%*s", colW, v)
			if i == m.cur && j == m.pcol {
				b.WriteString(st.RowSelected.Render("[" + cell[1:] + "]"))
			} else {
				b.WriteString(cell + " ")
			}
		}
		out = append(out, common.PadRight(b.String(), w))
	}
	return out
}
