package tui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
	"github.com/cordon-ir/cordon/tui/agents"
	"github.com/cordon-ir/cordon/tui/assistpane"
	"github.com/cordon-ir/cordon/tui/command"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/config"
	"github.com/cordon-ir/cordon/tui/detail"
	"github.com/cordon-ir/cordon/tui/drillpane"
	"github.com/cordon-ir/cordon/tui/evaluation"
	"github.com/cordon-ir/cordon/tui/facet"
	"github.com/cordon-ir/cordon/tui/findings"
	"github.com/cordon-ir/cordon/tui/indicators"
	tuijournal "github.com/cordon-ir/cordon/tui/journal"
	"github.com/cordon-ir/cordon/tui/prompt"
	"github.com/cordon-ir/cordon/tui/search"
	"github.com/cordon-ir/cordon/tui/sheet"
	"github.com/cordon-ir/cordon/tui/steps"
	"github.com/cordon-ir/cordon/tui/timeline"
)

// Options are how a console shows its case; what it shows comes from the
// case handle tui.New is given.
type Options struct {
	// Renderer is the terminal's lipgloss renderer (one per SSH session).
	Renderer *lipgloss.Renderer
	Dark     bool
	Logger   *slog.Logger
	Ctx      context.Context
	// JournalPoll is how often the Journal pane looks for entries other
	// processes wrote (0: every second; negative: only after this
	// console's own writes).
	JournalPoll time.Duration
	// Drill is a tabletop drill to run over the case (its workspace):
	// the header shows its clock, a Questions pane joins the tabs, the
	// facilitator's keys run the clock, and every action is a dry run.
	Drill *drill.Drill
	// DrillFacilitator runs the drill's clock; a participant is told the
	// clock keys are the facilitator's.
	DrillFacilitator bool
	// DrillDebrief is where E writes the debrief (default: the folder
	// holding the drill's workspace).
	DrillDebrief string
	// DrillEvery is the drill's tick (0: a second; negative: none, tests).
	DrillEvery time.Duration
	// Remote says the console is an SSH session: `:report` and `:export`
	// write only into the workspace's exports/ folder.
	Remote bool
	// Eval, where it names a suite or a run, is what the Evaluation pane
	// scores instead of what cordon.yaml's eval: names (cordon open
	// --eval-suite, --eval-run).
	Eval incident.EvalConfig
	// Config is the responder's config.yaml (nil: the defaults);
	// ConfigErr why it could not be read (the console opens on the
	// defaults and says so).
	Config    *config.Config
	ConfigErr error
	// Version is cordon's version, named in reports written from `:`.
	Version string
}

// Model is the root of the console.
type Model struct {
	com common.Common
	opt Options
	// initAgents is the Agents pane's first load, started by New on the
	// model itself: one started by Init (on a copy of the model) would be
	// answered to a pane that no longer waits for it, and thrown away.
	initAgents tea.Cmd
	// cs is the case: every read and write of the console goes through it.
	cs    *incident.Handle
	actor journal.Actor
	help  help.Model
	// marks persists marked events; nil disables marking (marksErr says why).
	marks    *incident.Marks
	marksErr error

	timeline timeline.Model
	detail   detail.Model
	agents   agents.Model
	findings findings.Model
	// indicators is the indicator register (report.Indicators).
	indicators indicators.Model
	// evaluation is the case scored against a suite (evaluationSource).
	evaluation evaluation.Model
	search     search.Model
	facet      facet.Model
	steps      steps.Model
	journal    tuijournal.Model
	assist     assistpane.Model
	prompt     prompt.Model
	drill      drillpane.Model
	command    command.Model
	sheet      sheet.Model
	// filesTitle is the title :files last showed: while the sheet shows
	// it, each round of the ingest lists the files again
	filesTitle string
	cfg        config.Config

	focus pane
	// nav is the way back from each view opened on top of another: esc
	// pops it.
	nav      navStack
	showHelp bool
	helpTop  int // the first help line shown

	counts    evidence.Counts
	span      evidence.Span // the main span of counts
	clock     common.Clock
	progress  incident.IngestUpdate
	ingesting bool
	// watch is this console's reader of the case's ingest: consoles of
	// several SSH sessions follow one ingest.
	watch *incident.IngestWatch

	err    error
	status string

	drillRows int // the drill bar's height at the last resize

	// history keeps the search bar's queries in the workspace.
	history *incident.History
}

// historyMsg is the workspace's search history after a load or an append.
type historyMsg struct {
	list  []string
	added bool // after an append: list holds every console's queries
	err   error
}

func loadHistoryCmd(com common.Common, h *incident.History) tea.Cmd {
	return com.Cmd(func() tea.Msg {
		list, err := h.Load()
		return historyMsg{list: list, err: err}
	})
}

func addHistoryCmd(com common.Common, h *incident.History, q string) tea.Cmd {
	return com.Cmd(func() tea.Msg {
		list, err := h.Add(q)
		return historyMsg{list: list, added: true, err: err}
	})
}

// New builds a console on a case. Nothing touches the store until Init's
// commands run.
func New(h *incident.Handle, opt Options) Model {
	if opt.Renderer == nil {
		opt.Renderer = lipgloss.DefaultRenderer()
	}
	var cfg config.Config
	if opt.Config != nil {
		cfg = *opt.Config
	}
	keys, pal, cfgErr := configured(cfg, opt.Dark)
	com := common.New(opt.Ctx, common.PaletteStyles(opt.Renderer, pal), keys, opt.Logger)
	hm := help.New()
	st := com.Styles
	hm.Styles = help.Styles{
		ShortKey: st.HelpKey, ShortDesc: st.HelpDesc, ShortSeparator: st.HelpSep, Ellipsis: st.HelpSep,
		FullKey: st.HelpKey, FullDesc: st.HelpDesc, FullSeparator: st.HelpSep,
	}
	actor := h.Actor()
	m := Model{
		com:      com,
		opt:      opt,
		cs:       h,
		actor:    actor,
		help:     hm,
		timeline: timeline.New(com, h),
		detail:   detail.New(com, h),
		agents:   agents.New(com, h),
		findings: findings.New(com, h),
		indicators: indicators.New(com, func(ctx context.Context) ([]report.Indicator, error) {
			ins, _, err := report.RedactedIndicators(ctx, h.Workspace())
			return ins, err
		}),
		evaluation: evaluation.New(com, evaluationSource(h, opt.Eval)),
		search:     search.New(com),
		facet:      facet.New(com, h),
		steps:      steps.New(com, h, actor, actor.Observer),
		journal:    tuijournal.New(com, h.Journal(), opt.JournalPoll),
		prompt:     prompt.New(com),
		ingesting:  h.Ingest() != nil,
		watch:      h.Watch(),
		history:    h.History(),
		sheet:      sheet.New(com),
		cfg:        cfg,
	}
	if cfgErr == nil && opt.ConfigErr != nil {
		m.err = fmt.Errorf("%w (the defaults apply)", opt.ConfigErr)
	}
	if cfgErr != nil {
		// the console still opens, on the defaults, and says why
		// (a problem CheckNames found names the file, line and column)
		if errors.Is(cfgErr, config.ErrInvalid) {
			m.err = fmt.Errorf("%w (the defaults apply)", cfgErr)
		} else {
			m.err = fmt.Errorf("%s: %w (the defaults apply)", orDefault(cfg.Path, "config.yaml"), cfgErr)
		}
	}
	acfg, acfgErr := h.Assistant()
	if opt.Drill != nil {
		// A drill replays identically: its assistant answers by rules, and
		// nothing of the scenario leaves the machine.
		acfg, acfgErr = assist.DefaultConfig(), nil
	}
	m.assist = assistpane.New(com, h, actor, acfg, acfgErr)
	m.drill = drillpane.New(com, drillpane.Config{Drill: opt.Drill, Facilitator: opt.DrillFacilitator, ReadOnly: actor.Observer,
		Actor: actor, DebriefDir: opt.DrillDebrief, Every: opt.DrillEvery})
	m.steps.SetDryRun(opt.Drill != nil) // a drill rehearses the kill switch, never pulls it
	m.command = command.New(com, m.verbs(), cfg.Aliases)
	m.initAgents = m.agents.Load()
	m.marks, m.marksErr = h.Marks()
	if m.marks != nil {
		list := m.marks.List()
		m.timeline.SetMarks(list)
		m.detail.SetMarks(list)
	}
	return m
}

// Init loads the first page, the counts and the agents, starts following
// the ingest and the journal (whose first read loads the playbook).
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.timeline.Init(), countsCmd(m.com, m.cs, false, false), m.initAgents, m.journal.Init()}
	if m.watch != nil {
		cmds = append(cmds, ingestCmd(m.com, m.watch))
	}
	cmds = append(cmds, m.drill.Init())
	cmds = append(cmds, loadHistoryCmd(m.com, m.history))
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

// Indicators returns the indicator pane (for tests).
func (m Model) Indicators() indicators.Model { return m.indicators }

// Evaluation returns the Evaluation pane (for tests).
func (m Model) Evaluation() evaluation.Model { return m.evaluation }

// Findings returns the findings pane (for tests).
func (m Model) Findings() findings.Model { return m.findings }

// Steps returns the Playbook pane (for tests).
func (m Model) Steps() steps.Model { return m.steps }

// Journal returns the Journal pane (for tests).
func (m Model) Journal() tuijournal.Model { return m.journal }

// Drill returns the drill's bar and Questions pane (for tests).
func (m Model) Drill() drillpane.Model { return m.drill }

// Assistant returns the Assistant pane (for tests).
func (m Model) Assistant() assistpane.Model { return m.assist }

// SearchHistory returns the search bar's history, oldest first (for tests).
func (m Model) SearchHistory() []string { return m.search.History() }

// Prompt returns the one-line input (for tests).
func (m Model) Prompt() prompt.Model { return m.prompt }

// Facet returns the field picker (for tests).
func (m Model) Facet() facet.Model { return m.facet }

// Command returns the `:` line (for tests).
func (m Model) Command() command.Model { return m.command }

// Sheet returns the list a `:` command shows (for tests).
func (m Model) Sheet() sheet.Model { return m.sheet }

// Status returns the status line's text and error (for tests).
func (m Model) Status() (string, error) { return m.status, m.err }

// resize lays the panes out: two header lines, the body, one status line.
func (m *Model) resize(w, h int) tea.Cmd {
	m.com = m.com.SetSize(w, h)
	body := max(h-3-m.drill.Rows(w), 1)
	m.drillRows = m.drill.Rows(w)
	m.drill.SetSize(w, body)
	cmd := m.timeline.SetSize(w, body)
	m.detail.SetSize(w, body)
	m.agents.SetSize(w, body)
	m.findings.SetSize(w, body)
	m.indicators.SetSize(w, body)
	m.evaluation.SetSize(w, body)
	m.facet.SetSize(w, body)
	m.steps.SetSize(w, body)
	m.journal.SetSize(w, body)
	m.assist.SetSize(w, body)
	m.search.SetSize(w)
	m.prompt.SetSize(w)
	m.command.SetSize(w)
	m.sheet.SetSize(w, body)
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
	span          evidence.Span
	refresh, live bool
}

// markedMsg is the result of toggling a mark.
type markedMsg struct {
	marks []incident.Mark
	on    bool
	err   error
}

func noteCmd(com common.Common, ws *incident.Handle, actor journal.Actor, step, event, text string) tea.Cmd {
	return com.Cmd(func() tea.Msg {
		e, err := ws.Note(com.Ctx, actor, step, event, text)
		if err != nil {
			return common.WrittenMsg{Err: fmt.Errorf("note: %w", err)}
		}
		return common.WrittenMsg{Text: fmt.Sprintf("journal #%d: note added", e.Seq)}
	})
}

// eventCmd fetches an event by id to open it.
func eventCmd(com common.Common, st evidence.Reader, id string) tea.Cmd {
	return com.Cmd(func() tea.Msg {
		ev, err := st.Get(com.Ctx, id)
		if err != nil {
			return common.ErrMsg{Err: fmt.Errorf("event %s: %w", evidence.Printable(id), err)}
		}
		return common.OpenEventMsg{Event: ev}
	})
}

func ingestCmd(com common.Common, w *incident.IngestWatch) tea.Cmd {
	ctx := com.Ctx
	return com.Cmd(func() tea.Msg {
		u, _ := w.Next(ctx)
		return ingestMsg{u: u}
	})
}

func countsCmd(com common.Common, st evidence.Reader, refresh, live bool) tea.Cmd {
	return com.Cmd(func() tea.Msg {
		c := st.Counts()
		// On an error the span keeps minute bounds: still the main span.
		sp, _ := c.MainSpan().Exact(com.Ctx, st)
		return countsMsg{c: c, span: sp, refresh: refresh, live: live}
	})
}

func toggleMarkCmd(com common.Common, marks *incident.Marks, actor journal.Actor, ev evidence.Event) tea.Cmd {
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
		// most telling first: a narrow header drops the last parts
		// (fitParts), and what the detectors found, with the events not
		// yet judged, outranks how many events came in
		switch d := u.Detected; {
		case u.DetectErr != nil:
			s += " · detectors failed"
		case len(d.Created) > 0:
			s += fmt.Sprintf(" · %d findings, %d new", u.Findings, len(d.Created))
		case u.Findings >= 0:
			s += fmt.Sprintf(" · %d findings", u.Findings)
		}
		if u.Held > 0 {
			// stored, searchable, and not yet judged: said, not hidden
			s += fmt.Sprintf(" · %s held for order", common.Count(int64(u.Held)))
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

// configured is the key map and palette config.yaml makes of the
// defaults; an error keeps the defaults whole.
func configured(cfg config.Config, dark bool) (*common.KeyMap, common.Palette, error) {
	keys := common.DefaultKeyMap()
	pal := common.LightPalette()
	if dark {
		pal = common.DarkPalette()
	}
	if err := cfg.CheckNames(keys.BindingNames(), common.PaletteRoles()); err != nil {
		return keys, pal, err
	}
	if err := keys.Remap(cfg.Keys); err != nil {
		return common.DefaultKeyMap(), pal, err
	}
	p := pal
	if err := p.Override(cfg.Palette); err != nil {
		return keys, pal, err
	}
	return keys, p, nil
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
