package tui

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/agents"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/detail"
	"github.com/cordon-ir/cordon/tui/facet"
	"github.com/cordon-ir/cordon/tui/findings"
	"github.com/cordon-ir/cordon/tui/search"
	"github.com/cordon-ir/cordon/tui/timeline"
)

// Options are what a console shows and how.
type Options struct {
	// Name is the incident's name for the header.
	Name  string
	Store evidence.Store
	// Marks persists marked events; nil disables marking (MarksErr says why).
	Marks    *incident.Marks
	MarksErr error
	// Ingest is a background ingest to follow, or nil.
	Ingest *incident.IngestRun
	// Renderer is the terminal's lipgloss renderer (one per SSH session).
	Renderer *lipgloss.Renderer
	Dark     bool
	Logger   *slog.Logger
	Ctx      context.Context
	// Actor is who the journal records for what is done in this console
	// (default: the OS user, via the console).
	Actor incident.Actor
	// ReadOnly is an observer's console: it searches and reads, and keys
	// that would change the case say why they are disabled.
	ReadOnly bool
}

// pane identifies a pane that can have focus.
type pane int

const (
	paneTimeline pane = iota
	paneAgents
	paneFindings
	paneDetail
)

func (p pane) String() string {
	switch p {
	case paneAgents:
		return "agents"
	case paneFindings:
		return "findings"
	case paneDetail:
		return "event"
	}
	return "timeline"
}

// Model is the root of the console.
type Model struct {
	com  common.Common
	opt  Options
	help help.Model

	timeline timeline.Model
	detail   detail.Model
	agents   agents.Model
	findings findings.Model
	search   search.Model
	facet    facet.Model

	focus    pane
	back     pane // where esc from the event pane returns
	showHelp bool

	counts    evidence.Counts
	clock     common.Clock
	progress  incident.IngestUpdate
	ingesting bool

	err    error
	status string
}

// New builds a console. Nothing touches the store until Init's commands run.
func New(opt Options) Model {
	if opt.Renderer == nil {
		opt.Renderer = lipgloss.DefaultRenderer()
	}
	if opt.Actor.Name == "" {
		opt.Actor = incident.CurrentActor(incident.ViaConsole)
	}
	opt.Actor.Observer = opt.Actor.Observer || opt.ReadOnly
	com := common.New(opt.Ctx, common.DefaultStyles(opt.Renderer, opt.Dark), common.DefaultKeyMap(), opt.Logger)
	h := help.New()
	st := com.Styles
	h.Styles = help.Styles{
		ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep, Ellipsis: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep,
	}
	m := Model{
		com:       com,
		opt:       opt,
		help:      h,
		timeline:  timeline.New(com, opt.Store),
		detail:    detail.New(com, opt.Store),
		agents:    agents.New(com, opt.Store),
		findings:  findings.New(com, opt.Store),
		search:    search.New(com),
		facet:     facet.New(com, opt.Store),
		ingesting: opt.Ingest != nil,
	}
	if opt.Marks != nil {
		list := opt.Marks.List()
		m.timeline.SetMarks(list)
		m.detail.SetMarks(list)
	}
	return m
}

// Init loads the first page, the counts and the agents, and starts
// following the ingest.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.timeline.Init(), countsCmd(m.com, m.opt.Store, false, false), m.agents.Load()}
	if m.opt.Ingest != nil {
		cmds = append(cmds, ingestCmd(m.com, m.opt.Ingest))
	}
	return tea.Batch(cmds...)
}

// Err is the error the console ended with, if any (for the command line).
func (m Model) Err() error { return m.err }

// Focus names the focused pane (for tests).
func (m Model) Focus() string { return m.focus.String() }

// Timeline returns the timeline pane (for tests).
func (m Model) Timeline() timeline.Model { return m.timeline }

// Detail returns the event pane (for tests).
func (m Model) Detail() detail.Model { return m.detail }

// Agents returns the agents pane (for tests).
func (m Model) Agents() agents.Model { return m.agents }

// Findings returns the findings pane (for tests).
func (m Model) Findings() findings.Model { return m.findings }

// Status returns the status line's text and error (for tests).
func (m Model) Status() (string, error) { return m.status, m.err }

// resize lays the panes out: two header lines, the body, one status line.
func (m *Model) resize(w, h int) tea.Cmd {
	m.com = m.com.SetSize(w, h)
	body := max(h-3, 1)
	cmd := m.timeline.SetSize(w, body)
	m.detail.SetSize(w, body)
	m.agents.SetSize(w, body)
	m.findings.SetSize(w, body)
	m.facet.SetSize(w, body)
	m.search.SetSize(w)
	m.help.Width = w
	return cmd
}

// ingestMsg is one update of the background ingest; Update re-issues
// ingestCmd after each until the last.
type ingestMsg struct{ u incident.IngestUpdate }

// countsMsg carries fresh counts; refresh says whether the timeline should
// reload its window (new events landed).
type countsMsg struct {
	c             evidence.Counts
	refresh, live bool
}

// markedMsg is the result of toggling a mark.
type markedMsg struct {
	marks []incident.Mark
	on    bool
	err   error
}

func ingestCmd(com common.Common, run *incident.IngestRun) tea.Cmd {
	ctx := com.Ctx
	return com.Cmd(func() tea.Msg {
		u, _ := run.Next(ctx)
		return ingestMsg{u: u}
	})
}

func countsCmd(com common.Common, st evidence.Store, refresh, live bool) tea.Cmd {
	return com.Cmd(func() tea.Msg { return countsMsg{c: st.Counts(), refresh: refresh, live: live} })
}

func toggleMarkCmd(com common.Common, marks *incident.Marks, actor incident.Actor, ev evidence.Event) tea.Cmd {
	return com.Cmd(func() tea.Msg {
		on, err := marks.Toggle(com.Ctx, actor, ev)
		return markedMsg{marks: marks.List(), on: on, err: err}
	})
}

// ingestLine summarizes a background ingest for the header.
func ingestLine(u incident.IngestUpdate) string {
	p := u.Progress
	rate := 0.0
	if s := p.Elapsed.Seconds(); s > 0 {
		rate = float64(p.Events) / s
	}
	if u.Done {
		s := fmt.Sprintf("ingest done: %s new events, %d files, %s", common.Count(p.New), p.Files, common.Duration(p.Elapsed))
		if u.Err != nil {
			s = "ingest stopped: " + u.Err.Error()
		}
		return s
	}
	if u.Following {
		files := len(u.Results)
		s := fmt.Sprintf("following %d file", files)
		if files != 1 {
			s += "s"
		}
		if u.Added > 0 {
			s += fmt.Sprintf(" · %s new events", common.Count(u.Added))
		}
		return s
	}
	s := "ingesting"
	if p.Total > 0 {
		s += fmt.Sprintf(" %d%%", p.Bytes*100/p.Total)
	}
	if p.Files > 1 {
		s += fmt.Sprintf(" · file %d/%d", min(p.FilesDone+1, p.Files), p.Files)
	}
	return s + fmt.Sprintf(" · %s events · %s/s", common.Count(p.Events), common.Count(int64(rate)))
}
