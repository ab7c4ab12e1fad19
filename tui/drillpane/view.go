package drillpane

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/steps"
)

// maxNoticeRows bounds how many lines an inject's text takes in the bar;
// the Journal pane keeps the whole text.
const maxNoticeRows = 3

// Rows is how many header lines the bar takes at width w (0: no drill).
func (m Model) Rows(w int) int {
	if !m.On() {
		return 0
	}
	return 1 + len(m.noticeLines(w))
}

// Bar renders the drill's header lines at width w: the clock, then the
// last inject (or what to do next).
func (m Model) Bar(w int) []string {
	if !m.On() || w <= 0 {
		return nil
	}
	st := m.com.Styles
	state := "▶ running"
	switch {
	case m.ended:
		state = "■ ended"
	case m.paused:
		state = "⏸ paused"
	}
	parts := []string{fmt.Sprintf("DRILL %s %s ×%g", state, m.now.UTC().Format("15:04:05"), m.speed)}
	switch {
	case m.ended:
		parts = []string{fmt.Sprintf("DRILL %s %s", state, m.now.UTC().Format("15:04:05"))}
		if m.debrief != "" {
			parts = append(parts, "debrief: "+m.debrief)
		}
	case m.cfg.Facilitator:
		switch {
		case m.hasNext:
			parts = append(parts, fmt.Sprintf("next inject %s in %s", m.nextAt.UTC().Format("15:04:05"), countdown(m.nextAt.Sub(m.now))))
		default:
			parts = append(parts, "no inject left")
		}
	}
	qs := m.cfg.Drill.Script.Quest
	answered := 0
	for _, q := range qs {
		if _, ok := m.answers[q.ID]; ok {
			answered++
		}
	}
	parts = append(parts, fmt.Sprintf("%d/%d answered", answered, len(qs)))
	out := []string{st.Progress.Render(common.Pad(" "+strings.Join(parts, " · "), w))}
	style := st.Warn
	if m.notice == nil {
		style = st.Dim
	}
	for _, l := range m.noticeLines(w) {
		out = append(out, style.Render(common.PadRight(l, w)))
	}
	return out
}

// noticeLines is the second part of the bar: the last inject, wrapped, or
// a hint of what to do.
func (m Model) noticeLines(w int) []string {
	if w <= 0 {
		return nil
	}
	if m.notice == nil {
		hint := " the facilitator runs the clock · tab to QUESTIONS: the briefing, the answers"
		switch {
		case m.cfg.Facilitator && m.ended:
			hint = " the scenario is over · E writes the debrief · q quits"
		case m.cfg.Facilitator && m.paused:
			hint = " p starts the clock · +/- speed · J next inject · E ends · tab: QUESTIONS"
		case m.cfg.Facilitator:
			hint = " p pauses · +/- speed · J next inject · E ends and debriefs · tab: QUESTIONS"
		}
		return []string{common.Fit(hint, w)}
	}
	head := "⚑ INJECT " + m.noticeAt.UTC().Format("15:04:05") + " "
	body := common.Fit(injectText(*m.notice), 4*w) + "  (D dismisses)"
	lines := strings.Split(ansi.Wordwrap(" "+head+body, max(w-1, 10), ""), "\n")
	if len(lines) > maxNoticeRows {
		lines = lines[:maxNoticeRows]
		lines[maxNoticeRows-1] = common.Fit(lines[maxNoticeRows-1]+" …", w)
	}
	for i := range lines {
		lines[i] = common.Fit(strings.TrimLeft(lines[i], " "), w-1)
		lines[i] = " " + lines[i]
	}
	return lines
}

// rebuild renders the Questions pane for its width: the briefing, then
// each question with the team's answer, and keeps the selection in view.
func (m *Model) rebuild() {
	if !m.On() {
		return
	}
	st := m.com.Styles
	w := max(m.com.Width, 20)
	s := m.cfg.Drill.Script
	qs := s.Quest
	m.cur = min(max(m.cur, 0), max(len(qs)-1, 0))
	var doc []string
	title := s.Title
	if title == "" {
		title = s.Scenario
	}
	doc = append(doc, st.Section.Render(common.Fit(" BRIEFING · "+title, w)))
	for _, l := range steps.Markdown(s.Briefing, w-2, st) {
		doc = append(doc, " "+l)
	}
	doc = append(doc, "", st.Section.Render(common.Fit(" QUESTIONS · enter answers the selected one; the last answer counts", w)))
	if len(qs) == 0 {
		doc = append(doc, st.Dim.Render(" this drill asks no questions"))
	}
	m.qline = m.qline[:0]
	for i, q := range qs {
		m.qline = append(m.qline, len(doc))
		sel := i == m.cur
		mark := "  "
		if sel {
			mark = "› "
		}
		head := fmt.Sprintf("%s%d. %s · %s", mark, i+1, q.ID, q.Kind)
		text := ansi.Wordwrap(common.Fit(q.Text, 4*w), max(w-6, 10), "")
		tl := strings.Split(text, "\n")
		if !sel && len(tl) > 1 {
			tl = []string{common.Fit(strings.Join(tl, " "), w-6)}
		}
		row := st.Row
		if sel {
			row = st.RowSelected
		}
		doc = append(doc, row.Render(common.Pad(" "+head, w)))
		for _, l := range tl {
			doc = append(doc, st.Value.Render(common.Pad("     "+l, w)))
		}
		ans := st.Dim.Render(common.Pad("     answer: — not yet", w))
		if e, ok := m.answers[q.ID]; ok {
			a, _ := m.Answer(q.ID)
			ans = st.Allow.Render(common.Pad(fmt.Sprintf("     answer: %s  (%s, %s)", a, e.Actor.Name, e.Time.UTC().Format("15:04:05")), w))
		}
		doc = append(doc, ans)
	}
	m.doc = doc
	h := max(m.com.Height, 1)
	if len(m.qline) > 0 {
		first := m.qline[m.cur]
		last := len(doc) - 1
		if m.cur+1 < len(m.qline) {
			last = m.qline[m.cur+1] - 1
		}
		if last >= m.top+h {
			m.top = last - h + 1
		}
		if first < m.top {
			m.top = first
		}
		if m.cur == 0 && last < h {
			m.top = 0 // the briefing stays in view while it can
		}
	}
	m.top = max(min(m.top, len(doc)-h), 0)
}

// View renders the Questions pane.
func (m Model) View() string {
	w, h := m.com.Width, m.com.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	var out []string
	if !m.On() {
		out = append(out, common.Fit("  not a drill", w))
	} else {
		out = append(out, m.doc[min(m.top, len(m.doc)):]...)
	}
	if len(out) > h {
		out = out[:h]
	}
	for len(out) < h {
		out = append(out, "")
	}
	for i := range out {
		out[i] = common.PadRight(out[i], w)
	}
	return strings.Join(out, "\n")
}
