package steps

import (
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/tui/common"
)

// widths are the list's and the detail's: side by side when the terminal
// is wide enough to read both, else the list, and the detail on enter.
func (m Model) widths() (int, int) {
	w := m.com.Width
	if w >= 100 {
		lw := min(52, w*2/5)
		return lw, w - lw - 1
	}
	return w, w
}

func (m Model) wide() bool { return m.com.Width >= 100 }

func (m Model) listRows() int { return max(m.com.Height-1, 1) }
func (m Model) docRows() int  { return max(m.com.Height-1, 1) }

// listRow is a phase heading (step < 0) or a step of the list.
type listRow struct {
	phase int
	step  int
}

func (m Model) rows() []listRow {
	var out []listRow
	i := 0
	for p := range m.pb.Phases {
		out = append(out, listRow{phase: p, step: -1})
		for range m.pb.Phases[p].Steps {
			out = append(out, listRow{phase: p, step: i})
			i++
		}
	}
	return out
}

// View renders the pane: a title line, then the list and the detail.
func (m Model) View() string {
	st := m.com.Styles
	w, h := m.com.Width, m.com.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	var out []string
	switch {
	case m.ws == nil:
		out = append(out, st.Dim.Render(common.Fit("  no incident workspace: the playbook and the journal need one (cordon open DIR)", w)))
	case m.err != nil && m.pb == nil:
		out = append(out, st.StatusError.Render(common.FitMessage("  playbook: "+m.err.Error(), w)))
	case !m.loaded:
		out = append(out, st.Dim.Render(common.Fit("  reading the playbook and the journal…", w)))
	default:
		out = append(out, m.titleLine())
		lw, dw := m.widths()
		list, doc := m.listView(lw), m.docView(dw)
		switch {
		case m.wide():
			sep := st.Dim.Render("│")
			for i := range list {
				out = append(out, common.PadRight(list[i], lw)+sep+doc[i])
			}
		case m.inDetail:
			out = append(out, doc...)
		default:
			out = append(out, list...)
		}
	}
	for len(out) < h {
		out = append(out, "")
	}
	for i := range out {
		out[i] = common.PadRight(out[i], w)
	}
	return strings.Join(out[:h], "\n")
}

// titleLine: the playbook, the case's subject, the progress.
func (m Model) titleLine() string {
	st := m.com.Styles
	done := 0
	for _, r := range m.refs {
		if s := m.state.Step(r.Step.ID).Status; s == "done" || s == "skipped" {
			done++
		}
	}
	parts := []string{fmt.Sprintf("%d/%d steps closed", done, len(m.refs))}
	switch {
	case len(m.state.Subject) > 0:
		parts = append(parts, "subject "+strings.Join(m.state.Subject, ", "))
	case len(m.vars["agent"]) > 0:
		parts = append(parts, "subject "+strings.Join(m.vars["agent"], ", ")+" (from findings)")
	case m.caseErr != nil:
		parts = append(parts, "case unknown: "+m.caseErr.Error())
	default:
		parts = append(parts, "no subject yet (cordon subject)")
	}
	parts = append(parts, m.pb.Title)
	if m.err != nil {
		parts = append([]string{"journal: " + m.err.Error()}, parts...)
	}
	return st.ColHeader.Render(common.Fit(" "+strings.Join(parts, " · "), m.com.Width))
}

// scrollList keeps the selected step, and its phase heading, in view.
func (m *Model) scrollList() {
	if m.pb == nil {
		return
	}
	n := m.listRows()
	rows := m.rows()
	curRow := 0
	for i, r := range rows {
		if r.step == m.cur {
			curRow = i
		}
	}
	top := min(m.top, curRow)
	if curRow > 0 && rows[curRow-1].step < 0 && curRow-1 < top {
		top = curRow - 1
	}
	if curRow >= top+n {
		top = curRow - n + 1
	}
	m.top = max(min(top, len(rows)-n), 0)
}

// listView is the phases and steps, lw wide, listRows tall.
func (m Model) listView(lw int) []string {
	st := m.com.Styles
	n := m.listRows()
	rows := m.rows()
	top := m.top
	var out []string
	for i := top; i < len(rows) && len(out) < n; i++ {
		r := rows[i]
		if r.step < 0 {
			ph := m.pb.Phases[r.phase]
			closed := 0
			for _, s := range ph.Steps {
				if x := m.state.Step(s.ID).Status; x == "done" || x == "skipped" {
					closed++
				}
			}
			out = append(out, st.Section.Render(common.Fit(fmt.Sprintf(" %s %d/%d", ph.Title, closed, len(ph.Steps)), lw)))
			continue
		}
		out = append(out, m.stepRow(r.step, lw))
	}
	for len(out) < n {
		out = append(out, "")
	}
	return out
}

// stepRow is one step: glyph, title, and its check's answer at the right.
func (m Model) stepRow(i, lw int) string {
	st := m.com.Styles
	ref := m.refs[i]
	ss := m.state.Step(ref.Step.ID)
	badge := ""
	if ref.Step.Check != nil {
		badge = CheckLabel(ss.Check)
	}
	bw := len([]rune(badge))
	tw := max(lw-2-4-1-bw, 4)
	title := common.Pad(m.expand(ref.Step.Title), tw)
	if i == m.cur {
		return st.RowSelected.Render(common.PadRight("▸ "+Glyph(ss.Status)+" "+title+" "+badge, lw))
	}
	return "  " + m.statusStyle(ss.Status).Render(Glyph(ss.Status)) + " " + title + " " + m.checkStyle(ss.Check).Render(badge)
}

// docView is the selected step's detail, dw wide, docRows tall.
func (m Model) docView(dw int) []string {
	st := m.com.Styles
	n := m.docRows()
	var out []string
	for i := m.dtop; i < len(m.doc) && len(out) < n; i++ {
		l := m.doc[i]
		switch {
		case l.kind == kText:
			out = append(out, " "+l.text)
		case m.inDetail && i == m.dcur:
			out = append(out, st.RowSelected.Render(common.PadRight("▸"+l.text, dw)))
		default:
			out = append(out, " "+l.text)
		}
	}
	if !m.inDetail && m.wide() && len(out) < n {
		out = append(out, "", st.Dim.Render(common.Fit(" enter: work in this step (j/k, space, enter; esc returns)", dw)))
	}
	for len(out) < n {
		out = append(out, "")
	}
	return out
}
