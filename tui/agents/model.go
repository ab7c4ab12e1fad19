package agents

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/tui/common"
)

type agentsMsg struct {
	seq          int
	agents       []attribution.AgentSummary
	unattributed int64
	err          error
}

// Model is the agents pane.
type Model struct {
	com common.Common
	cs  Case

	agents       []attribution.AgentSummary
	unattributed int64
	loaded       bool
	loading      bool
	seq          int
	cur, top     int
	clock        common.Clock

	// An open profile: one agent's sessions and capabilities.
	profileFor string
	prof       profile
	profLoaded bool
	pcur, ptop int
}

// New returns the pane on the case cs; Load fills it.
func New(com common.Common, cs Case) Model {
	return Model{com: com, cs: cs}
}

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.clamp()
}

// SetClock sets how times are shown.
func (m *Model) SetClock(c common.Clock) { m.clock = c }

// Agents returns the rows (for tests).
func (m Model) Agents() []attribution.AgentSummary { return m.agents }

// Load summarizes the agents again (at open, when the pane is shown, after
// an ingest).
func (m *Model) Load() tea.Cmd {
	m.seq++
	m.loading = true
	ctx, cs, seq := m.com.Ctx, m.cs, m.seq
	return m.com.Cmd(func() tea.Msg {
		a, err := cs.Agents(ctx)
		return agentsMsg{seq: seq, agents: a, unattributed: attribution.Unattributed(cs.Counts()), err: err}
	})
}

// Update handles the summary reply and, with focus, the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case agentsMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.loading = false
		if msg.err != nil {
			return m, common.Send(common.ErrMsg{Err: fmt.Errorf("agents: %w", msg.err)})
		}
		m.agents, m.unattributed, m.loaded = msg.agents, msg.unattributed, true
		m.clamp()
	case profileMsg:
		if msg.seq != m.seq || m.profileFor == "" {
			return m, nil
		}
		m.prof, m.profLoaded = msg.p, true
		if msg.err != nil {
			return m, common.Send(common.ErrMsg{Err: fmt.Errorf("agent %s: %w", m.profileFor, msg.err)})
		}
	case tea.MouseMsg:
		if m.profileFor != "" {
			return m, nil
		}
		m.cur, _ = m.com.Keys.MoveCursor(msg, m.cur, len(m.agents), m.rowsVisible())
		m.clamp()
	case tea.KeyMsg:
		if m.profileFor != "" {
			return m.updateProfile(msg)
		}
		k := m.com.Keys
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.agents), m.rowsVisible()); moved {
			m.cur = cur
			m.clamp()
			return m, nil
		}
		switch {
		case key.Matches(msg, k.Open):
			if m.cur >= 0 && m.cur < len(m.agents) {
				m.profLoaded, m.prof = false, profile{}
				return m, m.openProfile(m.agents[m.cur].Agent)
			}
		}
		m.clamp()
	}
	return m, nil
}

func (m *Model) rowsVisible() int { return max(m.com.Height-1, 1) }

func (m *Model) clamp() {
	m.cur, m.top = common.Scroll(m.cur, m.top, len(m.agents), m.rowsVisible())
}

// column of the agents table; width 0 takes the rest.
type column struct {
	title string
	width int
	right bool
	value func(a attribution.AgentSummary) string
}

func (m Model) columns() []column {
	w := m.com.Width
	clock := m.clock
	tw := 8
	if clock.Relative || clock.Days {
		tw = clock.Width()
	}
	short := func(a attribution.AgentSummary, first bool) string {
		t := a.Last
		if first {
			t = a.First
		}
		if t.IsZero() {
			return ""
		}
		s := clock.Format(t)
		if !clock.Relative && !clock.Days {
			s = s[:8]
		}
		return s
	}
	agentW := 12
	for _, a := range m.agents {
		agentW = max(agentW, min(ansi.StringWidth(agentName(a)), 24))
	}
	cols := []column{
		{"AGENT", agentW, false, agentName},
		{"MODEL", 0, false, func(a attribution.AgentSummary) string { return a.Model }},
	}
	if w >= 110 {
		cols = append(cols, column{"RUN", 10, false, func(a attribution.AgentSummary) string { return a.Run }})
	}
	cols = append(cols,
		column{"SANDBOX", 8, false, func(a attribution.AgentSummary) string { return a.Sandbox }},
		column{"IP", 11, false, func(a attribution.AgentSummary) string { return a.IP }},
		column{"FIRST", tw, false, func(a attribution.AgentSummary) string { return short(a, true) }},
		column{"LAST", tw, false, func(a attribution.AgentSummary) string { return short(a, false) }},
		column{"EVENTS", 7, true, func(a attribution.AgentSummary) string { return common.Count(a.Events) }},
		column{"DENIED", 8, true, func(a attribution.AgentSummary) string { return denied(a.Denied) }},
	)
	// MODEL takes what its values need, up to what is left: a model
	// version is a short name, and a column of blanks pushes the numbers
	// that matter to the far right of a wide terminal
	used := 2
	for _, c := range cols {
		used += c.width + 1
	}
	need := len("MODEL")
	for _, a := range m.agents {
		need = max(need, ansi.StringWidth(a.Model))
	}
	cols[1].width = max(min(need, w-used), 6)
	return cols
}

// denied labels a count, so that it reads without colour.
func denied(n int64) string {
	if n == 0 {
		return "0"
	}
	return "!" + common.Count(n)
}

func cell(s string, w int, right bool) string {
	if !right {
		return common.Pad(s, w)
	}
	s = common.Fit(s, w)
	return strings.Repeat(" ", max(w-ansi.StringWidth(s), 0)) + s
}

// Profiling reports an open profile (for the key help).
func (m Model) Profiling() bool { return m.profileFor != "" }

// View renders the agents table, or the open profile.
func (m Model) View() string {
	st := m.com.Styles
	h, w := m.com.Height, m.com.Width
	if h <= 0 || w <= 0 {
		return ""
	}
	if m.profileFor != "" {
		return m.viewProfile()
	}
	cols := m.columns()
	var hdr strings.Builder
	hdr.WriteString("  ")
	for i, c := range cols {
		if i > 0 {
			hdr.WriteByte(' ')
		}
		hdr.WriteString(cell(c.title, c.width, c.right))
	}
	out := []string{st.ColHeader.Render(common.PadRight(hdr.String(), w))}
	switch {
	case !m.loaded && m.loading:
		out = append(out, st.Dim.Render("  summarizing agents…"))
	case len(m.agents) == 0:
		out = append(out, st.Dim.Render(common.Fit("  no agent in the evidence yet (agents come from ledger records and attribution)", w)))
	}
	end := min(m.top+m.rowsVisible(), len(m.agents))
	for i := m.top; i < end; i++ {
		a := m.agents[i]
		var b strings.Builder
		sel := i == m.cur
		if sel {
			b.WriteString("▸ ")
		} else {
			b.WriteString("  ")
		}
		for j, c := range cols {
			if j > 0 {
				b.WriteByte(' ')
			}
			v := cell(c.value(a), c.width, c.right)
			if !sel && c.title == "DENIED" && a.Denied > 0 {
				v = st.Deny.Render(v)
			}
			b.WriteString(v)
		}
		line := b.String()
		if sel {
			line = st.RowSelected.Render(common.PadRight(line, w))
		}
		out = append(out, line)
	}
	if m.unattributed > 0 && len(out) < h {
		out = append(out, "", st.Dim.Render(common.Fit(fmt.Sprintf("  %s events are not attributed to any agent yet", common.Count(m.unattributed)), w)))
	}
	if len(m.agents) > 0 && len(out) < h {
		out = append(out, st.Dim.Render(common.Fit("  enter opens the agent: its sessions and capabilities", w)))
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out[:h], "\n")
}

// agentName is an agent as the pane lists it: a name that looks like
// another's is written out (<U+0430 Cyrillic>) and marked, so that two
// agents are never read as one.
func agentName(a attribution.AgentSummary) string {
	name := a.Agent
	if a.Revealed != "" {
		name = a.Revealed
	}
	if len(a.LookAlike) > 0 {
		name = "≈" + name
	}
	if a.Contested > 0 {
		// a key it shared with another acting session: events left between them
		name = "⇄" + name
	}
	return name
}
