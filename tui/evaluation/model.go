package evaluation

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/findings"
)

// Source is what the pane scores: Score scores the case for one ledger
// run id ("" the whole case) with the suite the console was given (the
// case's cordon.yaml `eval.suite`, else the built-in one), through the
// function `cordon eval run` scores with (eval.ScoreWith); Runs lists the
// run ids the case's session records carry, oldest first; Run is the run
// scored first (cordon.yaml `eval.run`). Scoring only reads the case;
// `cordon eval run` journals a scorecard.
type Source struct {
	Score func(ctx context.Context, run string) (*eval.Scorecard, error)
	Runs  func(ctx context.Context) ([]string, error)
	// Kills are the kills the harness's ledger recorded of the subject's
	// agents (incident.Workspace.HarnessKills), with a run scored those in
	// the run (eval.RunKills): named beside a stop control with no kill
	// time recorded, never judged at.
	Kills func(ctx context.Context, subject []string, run string) (map[string]time.Time, error)
	Run   string
}

type loadedMsg struct {
	seq   int
	run   string
	sc    *eval.Scorecard
	runs  []string
	kills map[string]time.Time
	err   error
}

// row is one line of the pane: a tried test, or one of its controls.
type row struct {
	test    int
	control int // -1: the test's own row
}

// Model is the Evaluation pane.
type Model struct {
	com      common.Common
	src      Source
	sc       *eval.Scorecard
	rows     []row
	loaded   bool
	loading  bool
	seq      int
	cur, top int
	clock    common.Clock
	// run is the run scored ("" the whole case); runs those the case's
	// session records carry, as the last load found them.
	run    string
	runs   []string
	failed bool // the last load's scoring failed
	// kills are the harness's kills of the subject when no kill time is
	// recorded (Source.Kills)
	kills map[string]time.Time
}

// New returns the pane; Load fills it from src.
func New(com common.Common, src Source) Model { return Model{com: com, src: src, run: src.Run} }

// Run is the run the pane scores ("" the whole case).
func (m Model) Run() string { return m.run }

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.clamp()
}

// SetClock sets how times are shown.
func (m *Model) SetClock(c common.Clock) { m.clock = c }

// Scorecard is what the pane shows (for tests); nil before a load.
func (m Model) Scorecard() *eval.Scorecard { return m.sc }

// Loaded reports whether the case was scored once.
func (m Model) Loaded() bool { return m.loaded }

// Load scores the case for the run chosen, and lists the runs there are.
func (m *Model) Load() tea.Cmd {
	if m.src.Score == nil {
		return nil
	}
	m.seq++
	m.loading = true
	ctx, src, seq, run := m.com.Ctx, m.src, m.seq, m.run
	return m.com.Cmd(func() tea.Msg {
		msg := loadedMsg{seq: seq, run: run}
		if src.Runs != nil {
			if msg.runs, msg.err = src.Runs(ctx); msg.err != nil {
				return msg
			}
		}
		msg.sc, msg.err = src.Score(ctx, run)
		if msg.err == nil && msg.sc.Kill.IsZero() && src.Kills != nil {
			msg.kills, _ = src.Kills(ctx, msg.sc.Subject, run) // a hint: none without it
		}
		return msg
	})
}

// nextRun scores the next run the case's session records carry, after
// the last the whole case again.
func (m *Model) nextRun() tea.Cmd {
	if len(m.runs) == 0 {
		return common.Send(common.StatusMsg{Text: "no session record carries a run id: the whole case is scored"})
	}
	i := slices.Index(m.runs, m.run) // -1 for the whole case
	m.run = ""
	if i+1 < len(m.runs) {
		m.run = m.runs[i+1]
	}
	return tea.Batch(m.Load(), common.Send(common.StatusMsg{Text: "evaluation: " + runName(m.run) + " (r: the next run)"}))
}

// runName says which run is scored.
func runName(run string) string {
	if run == "" {
		return "the whole case"
	}
	return "run " + run
}

// Update handles the scorecard's arrival and, with focus, the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.loading = false
		if msg.runs != nil {
			m.runs = msg.runs
		}
		if msg.err != nil {
			// the scorecard shown, if any, stays another run's: say so
			m.sc, m.rows, m.failed = nil, nil, true
			m.clamp()
			return m, common.Send(common.ErrMsg{Err: fmt.Errorf("evaluation of %s: %w", runName(msg.run), msg.err)})
		}
		m.sc, m.loaded, m.failed, m.kills = msg.sc, true, false, msg.kills
		m.rows = rowsOf(msg.sc)
		m.clamp()
	case tea.MouseMsg:
		m.cur, _ = m.com.Keys.MoveCursor(msg, m.cur, len(m.rows), m.rowsVisible())
		m.clamp()
	case tea.KeyMsg:
		k := m.com.Keys
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.rows), m.rowsVisible()); moved {
			m.cur = cur
			m.clamp()
			return m, nil
		}
		if key.Matches(msg, k.Open) {
			return m, m.open()
		}
		if key.Matches(msg, k.EvalRun) {
			return m, m.nextRun()
		}
	}
	return m, nil
}

// rowsOf lists the tests the run tried, each followed by its controls.
func rowsOf(sc *eval.Scorecard) []row {
	var rows []row
	if sc == nil {
		return nil
	}
	for i, t := range sc.Tests {
		if !t.Tried {
			continue
		}
		rows = append(rows, row{test: i, control: -1})
		for j := range t.Controls {
			rows = append(rows, row{test: i, control: j})
		}
	}
	return rows
}

// open filters the timeline: a test to its tries; a missed control to
// the events that should have made it answer; a control that fired to
// its answer. A control that could not be told says why instead.
func (m Model) open() tea.Cmd {
	if m.cur < 0 || m.cur >= len(m.rows) {
		return nil
	}
	r := m.rows[m.cur]
	t := m.sc.Tests[r.test]
	ids, what := t.EventIDs, "the tries of "+t.ID
	if r.control >= 0 {
		c := t.Controls[r.control]
		switch c.Outcome {
		case eval.Missed:
			ids, what = c.Triggers, "what should have made "+c.Control+" answer on "+t.ID
		case eval.Fired:
			ids, what = c.Events, "the answer of "+c.Control+" on "+t.ID
		default:
			if hint := m.killHint(c); hint != "" {
				return common.Send(common.StatusMsg{Text: common.Clip(hint, 200)})
			}
			return common.Send(common.StatusMsg{Text: common.Clip(string(c.Outcome)+": "+c.Why, 200)})
		}
	}
	if len(ids) == 0 {
		return common.Send(common.StatusMsg{Text: "no event to open for " + what})
	}
	ids = ids[:min(len(ids), findings.MaxFilterIDs)]
	n := common.EventsLabel(len(ids))
	return tea.Batch(
		common.Send(common.FilterMsg{Set: evidence.IDs(ids...), Replace: true, Label: common.Clip(what, 60) + " · " + n}),
		common.Send(common.StatusMsg{Text: "timeline filtered to " + common.Clip(what, 70) + " (esc goes back)"}))
}

// killHint is, for a stop control that could not tell because no kill
// time is recorded, the kill the harness's ledger recorded of the whole
// subject and where to record it ("" when it recorded none): the same
// hint cordon eval run gives, as cordon verdict words it.
func (m Model) killHint(c eval.ControlResult) string {
	if c.Kind != eval.ControlStop || !m.sc.Kill.IsZero() {
		return ""
	}
	t := incident.SubjectKill(m.kills, m.sc.Subject)
	if t.IsZero() {
		return ""
	}
	return fmt.Sprintf("no kill time; the ledger killed %s at %s: d on contain.stop offers it",
		evidence.Printable(strings.Join(m.sc.Subject, ", ")), m.clock.Format(t))
}

func (m *Model) rowsVisible() int { return max(m.com.Height-2-footRows, 1) }

func (m *Model) clamp() {
	m.cur, m.top = common.Scroll(m.cur, m.top, len(m.rows), m.rowsVisible())
}
