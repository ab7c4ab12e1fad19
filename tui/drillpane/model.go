package drillpane

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
)

// Every is how often, in wall time, the drill releases what scenario time
// has reached.
const Every = time.Second

// The kinds of question this package asks through the root's input.
const (
	AskAnswer = "drill-answer"
	AskEnd    = "drill-end"
)

// Config is what a console needs to run a drill.
type Config struct {
	Drill *drill.Drill
	// Facilitator runs the clock (p, +/-, J, E); a participant is told the
	// keys are the facilitator's.
	Facilitator bool
	// ReadOnly is an observer: it follows the drill and answers nothing.
	ReadOnly bool
	Actor    journal.Actor
	// DebriefDir receives debrief.md and debrief.json (default: the folder
	// holding the drill's workspace).
	DebriefDir string
	// Every is the tick period (0: Every; negative: no loop, only
	// AdvanceMsg, for tests that drive the drill by hand).
	Every time.Duration
}

// GrewMsg says the drill released evidence into the index: the panes that
// show the index reload, as after a following ingest's pass.
type GrewMsg struct{ Released int }

// AdvanceMsg asks for a tick now: release what scenario time has reached
// (tests drive a drill with a fake wall clock and no tick loop this way).
type AdvanceMsg struct{}

// Messages of the tick loop and the debrief; seq drops a stale loop.
type (
	tickMsg     struct{ seq int }
	advancedMsg struct {
		seq      int
		fired    []drill.Inject // every inject fired so far, by any console
		released int
		err      error
	}
	endedMsg struct {
		path     string
		score    drill.Score
		fired    []drill.Inject
		released int
		err      error
	}
)

// Model is the drill's state in the console: the bar and the Questions
// pane. The zero Model (no drill) shows nothing and does nothing.
type Model struct {
	com common.Common
	cfg Config

	// a snapshot of the drill, taken in Update, that View reads
	now, start, nextAt time.Time
	next               drill.Inject
	hasNext            bool
	speed              float64
	paused, ended      bool
	seen               int // records released when last seen

	notice    *drill.Inject // the last inject, until dismissed
	noticeAt  time.Time
	firedSeen int // injects fired when last seen
	seq       int

	answers  map[string]journal.Entry
	cur, top int
	doc      []string // the pane, rendered for its width
	qline    []int    // first line of each question in doc
	common.Asking
	ending  bool
	debrief string
}

// New returns the drill's model; cfg.Drill nil means no drill.
func New(com common.Common, cfg Config) Model {
	if cfg.Every == 0 {
		cfg.Every = Every
	}
	if cfg.Drill != nil && cfg.DebriefDir == "" {
		cfg.DebriefDir = filepath.Dir(cfg.Drill.WS.Dir)
	}
	m := Model{com: com, cfg: cfg, answers: map[string]journal.Entry{}}
	m.sync()
	return m
}

// On reports whether the console runs a drill.
func (m Model) On() bool { return m.cfg.Drill != nil }

// Facilitator reports whether this console runs the clock.
func (m Model) Facilitator() bool { return m.cfg.Facilitator }

// Now is the scenario time last seen (for tests).
func (m Model) Now() time.Time { return m.now }

// Paused reports whether scenario time stood still when last seen.
func (m Model) Paused() bool { return m.paused }

// Speed is the clock's speed when last seen.
func (m Model) Speed() float64 { return m.speed }

// Notice is the last inject's text until dismissed ("" when none).
func (m Model) Notice() string {
	if m.notice == nil {
		return ""
	}
	return injectText(*m.notice)
}

// Answer is the team's current answer to a question (latest wins).
func (m Model) Answer(id string) (string, bool) {
	e, ok := m.answers[id]
	if !ok {
		return "", false
	}
	_, a, _ := drill.AnswerOf(e)
	return a, true
}

// Selected is the id of the selected question ("" when none).
func (m Model) Selected() string {
	if !m.On() || m.cur >= len(m.cfg.Drill.Script.Quest) {
		return ""
	}
	return m.cfg.Drill.Script.Quest[m.cur].ID
}

// Debrief is where the debrief was written ("" before E).
func (m Model) Debrief() string { return m.debrief }

// SetSize sets the Questions pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.rebuild()
}

// SetJournal takes the journal's entries (after it grew) for the team's
// answers.
func (m *Model) SetJournal(entries []journal.Entry) {
	if !m.On() {
		return
	}
	m.answers = drill.LatestAnswers(entries)
	m.rebuild()
}

// sync reads the drill's clock into the model.
func (m *Model) sync() {
	d := m.cfg.Drill
	if d == nil {
		return
	}
	m.now, m.start = d.Clock.Now(), d.State.Start
	m.speed, m.paused, m.ended = d.Clock.Speed(), d.Clock.Paused(), d.Clock.Ended()
	m.next, m.nextAt, m.hasNext = d.NextInject()
}

// Init releases what is due at the start and starts the tick loop.
func (m Model) Init() tea.Cmd {
	if !m.On() {
		return nil
	}
	return m.advance()
}

// advance releases what scenario time has reached, in a command.
func (m *Model) advance() tea.Cmd {
	d, ctx, seq := m.cfg.Drill, m.com.Ctx, m.seq
	return m.com.Cmd(func() tea.Msg {
		_, err := d.Advance(ctx)
		return advancedMsg{seq: seq, fired: d.Fired(), released: d.Released(), err: err}
	})
}

// restart advances at once and drops the loop's pending tick: after a
// jump the team must not wait a second for the evidence.
func (m *Model) restart() tea.Cmd {
	m.seq++
	return m.advance()
}

func (m Model) tick() tea.Cmd {
	if m.cfg.Every < 0 {
		return nil
	}
	seq := m.seq
	return tea.Tick(nextTick(m.cfg.Drill, m.cfg.Every), func(time.Time) tea.Msg { return tickMsg{seq: seq} })
}

// nextTick is how long the loop waits: every, or less when an inject falls
// due sooner — at ×600 a second of wall time is ten scenario minutes, and
// an inject must not arrive that late.
func nextTick(d *drill.Drill, every time.Duration) time.Duration {
	if d.Clock.Paused() {
		return every
	}
	_, at, ok := d.NextInject()
	if !ok {
		return every
	}
	until := time.Duration(float64(at.Sub(d.Clock.Now())) / d.Clock.Speed())
	return max(min(until, every), 10*time.Millisecond)
}

// Update handles the drill's replies, the answers to its questions and,
// with the Questions pane focused, its keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if !m.On() {
		return m, nil
	}
	switch msg := msg.(type) {
	case tickMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		return m, m.advance()
	case AdvanceMsg:
		return m, m.restart()
	case advancedMsg:
		// every reply counts (an inject fires once, in one reply); only
		// the current loop goes on ticking
		cmds := []tea.Cmd{m.released(msg.fired, msg.released)}
		if msg.err != nil {
			cmds = append(cmds, common.Send(common.ErrMsg{Err: fmt.Errorf("drill: %w", msg.err)}))
		}
		if msg.seq == m.seq {
			cmds = append(cmds, m.tick())
		}
		return m, tea.Batch(cmds...)
	case endedMsg:
		m.ending = false
		cmds := []tea.Cmd{m.released(msg.fired, msg.released), m.restart()}
		if msg.err != nil {
			return m, tea.Batch(append(cmds, common.Send(common.ErrMsg{Err: fmt.Errorf("drill debrief: %w", msg.err)}))...)
		}
		m.debrief = msg.path
		s := msg.score
		return m, tea.Batch(append(cmds, common.Send(common.StatusMsg{Text: fmt.Sprintf(
			"drill ended: debrief written to %s (%d of %d right, %d to judge)", msg.path, s.Right, s.Total, s.ToJudge)}))...)
	case common.AnswerMsg:
		return m, m.answered(msg)
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		if cur, moved := m.com.Keys.MoveCursor(msg, m.cur, len(m.cfg.Drill.Script.Quest), m.com.Height); moved {
			m.cur = cur
			m.rebuild()
		}
	}
	return m, nil
}

// released takes what an advance found: the clock, a new inject (fired
// by this console or another sharing the drill), and whether the index
// grew.
func (m *Model) released(fired []drill.Inject, released int) tea.Cmd {
	m.sync()
	if n := len(fired); n > m.firedSeen {
		in := fired[n-1]
		m.notice, m.noticeAt, m.firedSeen = &in, in.At.Resolve(m.start), n
	}
	if released <= m.seen {
		return nil
	}
	m.seen = released
	return common.Send(GrewMsg{Released: released})
}

// handleKey: the Questions pane's keys (it has focus).
func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	qs := m.cfg.Drill.Script.Quest
	if cur, moved := k.MoveCursor(msg, m.cur, len(qs), max(m.com.Height/3, 2)); moved {
		m.cur = cur
		m.rebuild()
		return m, nil
	}
	if !key.Matches(msg, k.Open) || len(qs) == 0 {
		return m, nil
	}
	if m.cfg.ReadOnly {
		return m, common.Send(common.StatusMsg{Text: common.ReadOnlyText()})
	}
	q := qs[m.cur]
	cur, _ := m.Answer(q.ID)
	m.Pending = &common.Ask{Kind: AskAnswer, Step: q.ID, Value: cur,
		Prompt:      fmt.Sprintf("answer %s (%s): ", q.ID, q.Kind),
		Placeholder: placeholder(q.Kind)}
	return m, nil
}

func placeholder(kind string) string {
	switch kind {
	case drill.KindAgent:
		return "one agent id, e.g. agent-7"
	case drill.KindCredential:
		return "every credential, comma-separated"
	case drill.KindTime:
		return "HH:MM:SS or RFC 3339 (UTC)"
	case drill.KindHost:
		return "one host name"
	case drill.KindEvent:
		return "one event id"
	}
	return "free text, judged by the facilitator"
}

// answered acts on the reply to a question this package asked.
func (m *Model) answered(msg common.AnswerMsg) tea.Cmd {
	a := msg.Ask
	if msg.Cancelled || (a.Kind != AskAnswer && a.Kind != AskEnd) {
		return nil
	}
	if a.Kind == AskEnd {
		if v := strings.ToLower(msg.Value); v != "yes" && v != "y" {
			return common.Send(common.StatusMsg{Text: "the drill goes on: type yes to end it"})
		}
		return m.end()
	}
	if msg.Value == "" {
		return common.Send(common.StatusMsg{Text: "no answer recorded: it was empty"})
	}
	d, actor, ctx := m.cfg.Drill, m.cfg.Actor, m.com.Ctx
	id, text := a.Step, msg.Value
	return m.com.Cmd(func() tea.Msg {
		e, err := d.Answer(ctx, actor, id, text)
		if err != nil {
			return common.WrittenMsg{Err: fmt.Errorf("answer %s: %w", id, err)}
		}
		return common.WrittenMsg{Text: fmt.Sprintf("journal #%d: answer to %s recorded (the last answer counts)", e.Seq, id)}
	})
}

// end jumps to the scenario's end and writes the debrief, in a command.
func (m *Model) end() tea.Cmd {
	if m.ending {
		return nil
	}
	m.ending = true
	m.seq++ // the loop stops until the debrief is written
	d, ctx, dir := m.cfg.Drill, m.com.Ctx, m.cfg.DebriefDir
	return m.com.Cmd(func() tea.Msg {
		deb, _, err := d.End(ctx, dir)
		msg := endedMsg{fired: d.Fired(), released: d.Released(), err: err}
		if err == nil {
			msg.path, msg.score = filepath.Join(dir, "debrief.md"), deb.Score
		}
		return msg
	})
}

func injectText(in drill.Inject) string {
	if in.Text != "" {
		return in.Text
	}
	return "evidence released: " + strings.Join(in.Evidence, ", ")
}

// countdown is a scenario duration to the second: 45s, 3m10s, 1h01m03s.
func countdown(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	h, mn, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, mn, s)
	case mn > 0:
		return fmt.Sprintf("%dm%02ds", mn, s)
	}
	return fmt.Sprintf("%ds", s)
}
