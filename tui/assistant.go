package tui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/tui/assistpane"
)

// openAssistant opens the Assistant pane on the focused pane's selection:
// the finding under the cursor, the open event and its related events,
// the timeline's search and filter, or else the whole incident.
func (m Model) openAssistant() (Model, tea.Cmd) {
	if m.actor.Observer {
		m.status = "read-only: observers cannot call the assistant"
		return m, nil
	}
	sel := assistpane.Whole()
	switch m.focus {
	case paneTimeline:
		n, known := m.timeline.Hits()
		sel = assistpane.FromQuery(m.timeline.Query(), m.timeline.QueryText(), n, known)
	case paneFindings:
		if f, ok := m.findings.Selected(); ok {
			sel = assistpane.FromFinding(f)
		}
	case paneDetail:
		if m.detail.Has() {
			sel = assistpane.FromEvent(m.detail.Event(), m.detail.Related())
		}
	}
	m.nav = m.nav.drop(wayAssist).push(way{kind: wayAssist, pane: m.focus})
	m.focus = paneAssist
	cmd := m.assist.Open(sel)
	return m, cmd
}

// toAssist hands a message to the Assistant pane and opens the question it
// raises at once, so that keys typed right after land in the input.
func (m *Model) toAssist(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, m.com.Keys.Back) && m.assist.Picking() {
		// esc at the task picker goes back where the assistant was asked
		var w way
		m.nav, w, _ = m.nav.take(wayAssist)
		m.focus = w.pane
		return nil
	}
	var cmd tea.Cmd
	m.assist, cmd = m.assist.Update(msg)
	if a, ok := m.assist.TakeAsk(); ok {
		cmd = tea.Batch(cmd, m.prompt.Open(a))
	}
	return cmd
}
