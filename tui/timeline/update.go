package timeline

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/common"
)

// Update handles the timeline's replies and, when it has focus, its keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case anchorMsg:
		return m.applyAnchor(msg)
	case extendMsg:
		return m.applyExtend(msg)
	case hitsMsg:
		if msg.gen == m.gen && msg.err == nil {
			m.hits, m.hitsKnown = msg.total, true
		}
		return m, nil
	case deniedMsg:
		if msg.seq == m.sparkSeq {
			if err := quiet(msg.err); err != nil {
				return m, common.Send(common.ErrMsg{Err: err})
			}
			m.spark.denied = msg.series
		}
		return m, nil
	case matchMsg:
		// A reload of the window (new events, a pass that ended) keeps
		// the jump asked before it; a new query or a move asked since
		// (g, G, another jump) drops it.
		if msg.qgen != m.qgen {
			return m, nil
		}
		if err := quiet(msg.err); err != nil {
			return m, common.Send(common.ErrMsg{Err: err})
		}
		if !msg.found && msg.what != "" {
			return m, common.Send(common.StatusMsg{Text: "no more " + msg.what + " in the timeline's events this way"})
		}
		if !msg.found {
			return m, common.Send(common.StatusMsg{Text: "no more matches of " + common.Clip(m.lastSearch, 60)})
		}
		cmd := m.JumpTo(msg.ev)
		if msg.what != "" {
			cmd = tea.Batch(cmd, common.Send(common.StatusMsg{Text: msg.what + " at " + msg.ev.Time.UTC().Format("15:04:05.000") + " · " + common.Clip(msg.ev.Kind, 20)}))
		}
		return m, cmd
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			cmd := m.move(-3)
			return m, cmd
		case tea.MouseButtonWheelDown:
			cmd := m.move(3)
			return m, cmd
		}
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	switch {
	case key.Matches(msg, k.Down):
		cmd := m.move(1)
		return m, cmd
	case key.Matches(msg, k.Up):
		cmd := m.move(-1)
		return m, cmd
	case key.Matches(msg, k.PageDown):
		cmd := m.move(m.visible() - 1)
		return m, cmd
	case key.Matches(msg, k.PageUp):
		cmd := m.move(-(m.visible() - 1))
		return m, cmd
	case key.Matches(msg, k.Top):
		m.gen++
		m.qgen++
		m.loading, m.loadingBefore, m.loadingAfter = true, false, false
		return m, anchorCmd(&m, atStart, evidence.Cursor{}, -1, "", nil)
	case key.Matches(msg, k.Bottom):
		m.gen++
		m.qgen++
		m.loading, m.loadingBefore, m.loadingAfter = true, false, false
		return m, anchorCmd(&m, atEnd, evidence.Cursor{}, -1, "", nil)
	case key.Matches(msg, k.Open):
		if ev, ok := m.Selected(); ok {
			return m, common.Send(common.OpenEventMsg{Event: ev})
		}
	case key.Matches(msg, k.Mark):
		if ev, ok := m.Selected(); ok {
			return m, common.Send(common.ToggleMarkMsg{Event: ev})
		}
		return m, common.Send(common.StatusMsg{Text: "no event selected to mark"})
	case key.Matches(msg, k.NextMark):
		cmd := m.nextMark()
		return m, cmd
	case key.Matches(msg, k.PrevMark):
		cmd := m.prevMark()
		return m, cmd
	case key.Matches(msg, k.NextMatch, k.PrevMatch):
		cmd := m.nextMatch(key.Matches(msg, k.PrevMatch))
		return m, cmd
	case key.Matches(msg, k.Back):
		switch {
		case m.search != "":
			cmd := tea.Batch(m.setQuery(m.filter, "", evidence.All(), true), common.Send(common.StatusMsg{Text: "search cleared (n/N still find it)"}))
			return m, cmd
		case !m.filter.IsAll():
			cmd := tea.Batch(m.setQuery(evidence.All(), "", evidence.All(), true), common.Send(common.StatusMsg{Text: "filter cleared"}))
			return m, cmd
		}
	}
	return m, nil
}

// move moves the cursor by d rows and asks for more rows near the edges.
func (m *Model) move(d int) tea.Cmd {
	if len(m.rows) == 0 {
		return nil
	}
	m.cur = min(max(m.cur+d, 0), len(m.rows)-1)
	m.clampTop()
	return m.ensure()
}

// clampTop keeps the cursor on screen, scrolling as little as possible.
func (m *Model) clampTop() {
	v := m.visible()
	if m.cur < m.top {
		m.top = m.cur
	}
	if m.cur >= m.top+v {
		m.top = m.cur - v + 1
	}
	m.top = max(min(m.top, len(m.rows)-v), 0)
}

// ensure fetches a page before or after the window when the cursor comes
// within a screen of its edge.
func (m *Model) ensure() tea.Cmd {
	if m.loading || len(m.rows) == 0 {
		return nil
	}
	var cmds []tea.Cmd
	margin := 2 * m.visible()
	if m.moreAfter && !m.loadingAfter && len(m.rows)-1-m.cur < margin {
		m.loadingAfter = true
		cmds = append(cmds, extendCmd(m, false))
	}
	if m.moreBefore && !m.loadingBefore && m.cur < margin {
		m.loadingBefore = true
		cmds = append(cmds, extendCmd(m, true))
	}
	return tea.Batch(cmds...)
}

func (m Model) applyAnchor(msg anchorMsg) (Model, tea.Cmd) {
	if msg.gen != m.gen {
		return m, nil
	}
	m.loading = false
	if msg.err != nil {
		var cmds []tea.Cmd
		if err := quiet(msg.err); err != nil {
			cmds = append(cmds, common.Send(common.ErrMsg{Err: err}))
		}
		if msg.prev != nil {
			m.filter, m.search, m.searchQ, m.labels = msg.prev.filter, msg.prev.search, msg.prev.searchQ, msg.prev.labels
			m.query = evidence.And(m.filter, m.searchQ)
			m.hl = common.HitTerms(m.searchQ)
			m.gen++
			m.qgen++
			cmds = append(cmds, hitsCmd(&m))
		}
		return m, tea.Batch(cmds...)
	}
	m.rows, m.cur = msg.rows, msg.sel
	m.moreBefore, m.moreAfter = msg.before, msg.after
	if msg.keep >= 0 {
		m.top = m.cur - msg.keep
	} else {
		m.top = m.cur - m.visible()/3
	}
	m.clampTop()
	var cmds []tea.Cmd
	if msg.want != "" {
		if ev, ok := m.Selected(); !ok || ev.ID != msg.want {
			cmds = append(cmds, common.Send(common.StatusMsg{Text: "that event is not in the current filter/search (esc clears them)"}))
		}
	}
	cmds = append(cmds, m.ensure())
	return m, tea.Batch(cmds...)
}

func (m Model) applyExtend(msg extendMsg) (Model, tea.Cmd) {
	if msg.gen != m.gen || len(m.rows) == 0 {
		return m, nil
	}
	if msg.backward {
		m.loadingBefore = false
		if msg.from != m.rows[0].ID {
			cmd := m.ensure()
			return m, cmd
		}
	} else {
		m.loadingAfter = false
		if msg.from != m.rows[len(m.rows)-1].ID {
			cmd := m.ensure()
			return m, cmd
		}
	}
	if err := quiet(msg.err); err != nil {
		return m, common.Send(common.ErrMsg{Err: fmt.Errorf("timeline: %w", err)})
	}
	if msg.backward {
		m.moreBefore = msg.more
		n := len(msg.rows)
		m.rows = append(append(make([]evidence.Event, 0, n+len(m.rows)), msg.rows...), m.rows...)
		m.cur += n
		m.top += n
		if extra := len(m.rows) - m.maxRows(); extra > 0 && len(m.rows)-extra > m.top+m.visible() {
			m.rows = m.rows[:len(m.rows)-extra]
			m.moreAfter = true
		}
	} else {
		m.moreAfter = msg.more
		m.rows = append(m.rows, msg.rows...)
		if extra := min(len(m.rows)-m.maxRows(), m.top); extra > 0 {
			m.rows = m.rows[extra:]
			m.cur -= extra
			m.top -= extra
			m.moreBefore = true
		}
	}
	m.clampTop()
	cmd := m.ensure()
	return m, cmd
}

func (m *Model) nextMark() tea.Cmd {
	if len(m.markList) == 0 {
		return common.Send(common.StatusMsg{Text: "no marks yet: m marks the event under the cursor"})
	}
	at := evidence.Cursor{}
	if ev, ok := m.Selected(); ok {
		at = cursorOf(ev)
	}
	k, _ := incident.NextMark(m.markList, at)
	return m.JumpTo(evidence.Event{ID: k.ID, Time: k.Time})
}

// Seek jumps to the next (or previous, backward) event after the cursor
// that matches q among the events the timeline shows; what names it in
// the status line ("denial").
func (m *Model) Seek(q evidence.Query, backward bool, what string) tea.Cmd {
	if len(m.rows) == 0 {
		return common.Send(common.StatusMsg{Text: "no events to jump from"})
	}
	return seekCmd(m, evidence.And(m.query, q), backward, what)
}

// prevMark jumps to the mark before the cursor (wrapping to the last).
func (m *Model) prevMark() tea.Cmd {
	if len(m.markList) == 0 {
		return common.Send(common.StatusMsg{Text: "no marks yet: m marks the event under the cursor"})
	}
	at := evidence.Cursor{}
	if ev, ok := m.Selected(); ok {
		at = cursorOf(ev)
	}
	k, _ := incident.PrevMark(m.markList, at)
	return m.JumpTo(evidence.Event{ID: k.ID, Time: k.Time})
}

func (m *Model) nextMatch(backward bool) tea.Cmd {
	switch {
	case m.lastSearch == "":
		return common.Send(common.StatusMsg{Text: "no search yet: / searches"})
	case m.search != "":
		// every row is a match
		if backward {
			return m.move(-1)
		}
		return m.move(1)
	case len(m.rows) == 0:
		return nil
	}
	return matchCmd(m, backward)
}
