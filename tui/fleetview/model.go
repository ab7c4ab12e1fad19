package fleetview

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/findings"
)

// Selection is what enter chose: an agent, and the finding it was on (the
// zero Finding on the agent's own line).
type Selection struct {
	Agent   string
	Finding detect.Finding
}

// Options configure a fleet console.
type Options struct {
	// Source names where the findings come from (a stream), for the title.
	Source string
	// ReadOnly is an observer's console: it shows the fleet and opens
	// nothing (opening pulls evidence into a workspace).
	ReadOnly bool
	// InPlace makes enter send an OpenMsg instead of quitting: the program
	// the console runs in opens the incident itself (an SSH session).
	InPlace bool
}

// OpenMsg asks the program to open the incident of a Selection.
type OpenMsg struct{ Selection Selection }

// changedMsg says the board changed.
type changedMsg struct{}

// row is one line of the list: an agent's rank, or one of its findings.
type row struct {
	rank    int // index in snap.Ranks
	finding int // index in the agent's findings; -1 for the agent's line
}

// Model is the fleet console.
type Model struct {
	com    common.Common
	board  *Board
	opt    Options
	snap   Snapshot
	rows   []row
	cur    int
	top    int
	status string
	chosen *Selection
	// changed is the board's channel taken before the snapshot shown:
	// a change after the snapshot closes it, whenever Init or Update
	// come to wait on it.
	changed <-chan struct{}
}

// New returns a console over board; Init starts following it.
func New(com common.Common, board *Board, opt Options) Model {
	m := Model{com: com, board: board, opt: opt}
	m.load()
	return m
}

// Init waits for the board's next change.
func (m Model) Init() tea.Cmd { return m.wait() }

// Chosen is the selection enter made (false: the console was quit).
func (m Model) Chosen() (Selection, bool) {
	if m.chosen == nil {
		return Selection{}, false
	}
	return *m.chosen, true
}

// Resume is the console again after the incident it opened was closed:
// the same cursor, nothing chosen.
func (m Model) Resume() Model {
	m.chosen, m.status = nil, ""
	m.load()
	return m
}

// Say shows text on the status line (an incident that did not open).
func (m Model) Say(text string) Model {
	m.status = text
	return m
}

// Snapshot is what the console shows (for tests).
func (m Model) Snapshot() Snapshot { return m.snap }

// wait is a Cmd that returns when the board changed since the snapshot
// shown; it copies the channel now, never reading the model from its
// goroutine.
func (m Model) wait() tea.Cmd {
	ch, done := m.changed, m.com.Ctx.Done()
	return func() tea.Msg {
		select {
		case <-ch:
			return changedMsg{}
		case <-done:
			return nil
		}
	}
}

// load takes the board as it stands and keeps the cursor on the line it
// was on (the same agent and finding), wherever the ranking moved it.
func (m *Model) load() {
	was, had := m.selection()
	m.changed = m.board.Changed()
	m.snap = m.board.Snapshot()
	m.rows = m.rows[:0]
	for i, r := range m.snap.Ranks {
		m.rows = append(m.rows, row{rank: i, finding: -1})
		for j := range m.snap.Findings[r.Agent] {
			m.rows = append(m.rows, row{rank: i, finding: j})
		}
	}
	if had {
		for i := range m.rows {
			if s, _ := m.selectionAt(i); s.Agent == was.Agent && s.Finding.ID == was.Finding.ID {
				m.cur = i
				break
			}
		}
	}
	m.cur, m.top = common.Scroll(m.cur, m.top, len(m.rows), m.visible())
}

func (m Model) selection() (Selection, bool) { return m.selectionAt(m.cur) }

func (m Model) selectionAt(i int) (Selection, bool) {
	if i < 0 || i >= len(m.rows) {
		return Selection{}, false
	}
	r := m.rows[i]
	s := Selection{Agent: m.snap.Ranks[r.rank].Agent}
	if r.finding >= 0 {
		s.Finding = m.snap.Findings[s.Agent][r.finding]
	}
	return s, true
}

// visible is how many list lines fit: the title, the column header and
// the status line take three.
func (m Model) visible() int { return max(m.com.Height-3, 1) }

// Update follows the board and handles the keys.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case changedMsg:
		m.load()
		return m, m.wait()
	case tea.WindowSizeMsg:
		m.com = m.com.SetSize(msg.Width, msg.Height)
		m.cur, m.top = common.Scroll(m.cur, m.top, len(m.rows), m.visible())
	case tea.KeyMsg:
		k := m.com.Keys
		m.status = ""
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.rows), m.visible()); moved {
			m.cur, m.top = common.Scroll(cur, m.top, len(m.rows), m.visible())
			return m, nil
		}
		switch {
		case key.Matches(msg, k.Quit), key.Matches(msg, k.ForceQuit):
			return m, tea.Quit
		case key.Matches(msg, k.Open):
			s, ok := m.selection()
			switch {
			case !ok:
				m.status = "no agent to open yet: findings appear as the watchers publish them"
			case s.Agent == "":
				// pulling "no agent" would take every event nobody's
				m.status = "these findings name no agent: open the incident of an agent they involve"
			case m.opt.ReadOnly:
				m.status = "read-only console: opening an incident pulls evidence into a workspace, which an observer cannot do"
			case m.opt.InPlace:
				m.status = "pulling " + s.Agent + "'s evidence…"
				return m, common.Send(OpenMsg{Selection: s})
			default:
				m.chosen = &s
				return m, tea.Quit
			}
		}
	}
	return m, nil
}

// View draws the title, the ranked agents with their findings, and a
// status line. Every string from the bus is evidence (an agent names
// itself) and goes through common.Fit.
func (m Model) View() string {
	w, st := m.com.Width, m.com.Styles
	if w <= 0 {
		return ""
	}
	var b strings.Builder
	live := "live"
	if m.snap.Status != "" {
		live = m.snap.Status
	}
	title := fmt.Sprintf("cordon · fleet · %s · %d agents · %d findings · %s", m.opt.Source, len(m.snap.Ranks), m.snap.Total, live)
	if !m.snap.Last.IsZero() {
		title += " · last " + m.snap.Last.UTC().Format(time.TimeOnly)
	}
	b.WriteString(st.Title.Render(common.Fit(title, w)) + "\n")
	b.WriteString(st.ColHeader.Render(common.Cut("  #  SEV   AGENT                 EPISODES  WHY", w)) + "\n")
	n := 0
	for i := m.top; i < len(m.rows) && n < m.visible(); i, n = i+1, n+1 {
		b.WriteString(m.line(i, w) + "\n")
	}
	for ; n < m.visible(); n++ {
		b.WriteString("\n")
	}
	b.WriteString(m.statusLine(w))
	return b.String()
}

func (m Model) line(i, w int) string {
	st := m.com.Styles
	r := m.rows[i]
	rk := m.snap.Ranks[r.rank]
	var sev, text string
	if r.finding < 0 {
		sev = rk.Severity
		agent := rk.Agent
		if agent == "" {
			agent = "(no agent)"
		}
		text = fmt.Sprintf("%-3d ", rk.Rank) + common.Pad(findings.Label(sev), 5) + " " + common.Pad(agent, 21) +
			" " + common.Pad(fmt.Sprint(rk.Episodes), 9) + " " + common.Fit(rk.Reason, max(w-44, 1))
	} else {
		f := m.snap.Findings[rk.Agent][r.finding]
		sev = f.Severity
		text = "    " + common.Pad(findings.Label(sev), 5) + " └ " + common.Pad(f.Detector, 26) + " " +
			f.End.UTC().Format(time.TimeOnly) + " " + common.Fit(f.Title, max(w-49, 1))
	}
	if i == m.cur {
		return st.RowSelected.Render(common.PadRight("▸ "+text, w))
	}
	return "  " + m.sevStyle(sev).Render(common.Cut(text, w-2))
}

// standing is the agent under the cursor and its Standing, if its
// harness recorded a kill.
func (m Model) standing() (string, capability.Standing, bool) {
	if m.cur < 0 || m.cur >= len(m.rows) {
		return "", capability.Standing{}, false
	}
	agent := m.snap.Ranks[m.rows[m.cur].rank].Agent
	sd, ok := m.snap.Standings[agent]
	return agent, sd, ok && agent != ""
}

func (m Model) sevStyle(sev string) lipgloss.Style {
	st := m.com.Styles
	switch sev {
	case detect.SeverityCritical, detect.SeverityHigh:
		return st.Deny
	case detect.SeverityMedium:
		return st.Warn
	}
	return st.Row
}

func (m Model) statusLine(w int) string {
	st := m.com.Styles
	if m.status != "" {
		return st.StatusError.Render(common.FitMessage(m.status, w))
	}
	help := "enter open incident · j/k move · g/G first/last · q quit"
	if m.opt.ReadOnly {
		help = "read-only · j/k move · g/G first/last · q quit"
	}
	if len(m.rows) == 0 {
		help = "waiting for the watchers' findings · " + help
	}
	if agent, sd, ok := m.standing(); ok {
		// what the agent's own Assessment at its harness's kill says
		return st.Status.Render(common.Fit(agent+": "+sd.Headline+" · by "+sd.By+" · "+help, w))
	}
	return st.Status.Render(common.Cut(help, w))
}
