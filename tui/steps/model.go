package steps

import (
	"fmt"
	"slices"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/playbook"
	"github.com/cordon-ir/cordon/tui/common"
)

// loadedMsg carries the playbook, the case state folded from the journal
// and the case's template variables.
type loadedMsg struct {
	seq     int
	pb      *playbook.Playbook
	actions actionSet
	state   incident.CaseState
	vars    playbook.Vars
	varsKey string
	// kill is the case's HarnessKill, when the case was filled
	kill    time.Time
	killSet bool
	err     error
	caseErr error
}

// Model is the Playbook pane.
type Model struct {
	com      common.Common
	ws       common.Casework
	actor    journal.Actor
	readOnly bool
	// dryRun simulates every action (a drill): the journal records what
	// would have run, nothing runs.
	dryRun bool

	pb      *playbook.Playbook
	refs    []playbook.StepRef
	actions actionSet // the command templates cordon.yaml configures
	state   incident.CaseState
	vars    playbook.Vars
	varsKey string
	// kill is when the harness's ledger had killed the subject (zero: it
	// did not): what done on a step that records contained_at offers
	kill    time.Time
	loaded  bool
	seq     int
	err     error // the playbook could not be read
	caseErr error // the case variables could not be filled

	cur, top int // the selected step, the first list row shown
	inDetail bool
	doc      []line // the selected step, rendered for the detail width
	dcur     int    // the selected line of doc (an actionable one when any)
	dtop     int
	// openItem is the checklist item enter opened under its line, plus
	// one (0: none): its whole text and who ticked it when.
	openItem int

	// plan is the action waiting for its typed confirmation, shown above
	// the step; planSeq drops a plan that arrives after another enter.
	plan     *incident.ActionPlan
	planStep string
	planSeq  int

	// Pending (Asking) is a question for the root to open at once: the
	// keys typed right after d, x or n must land in the input, not in
	// the list.
	common.Asking
}

// New returns the pane; ws nil shows why there is no playbook. An observer
// (readOnly) reads everything and is told why the keys that write do
// nothing.
func New(com common.Common, ws common.Casework, actor journal.Actor, readOnly bool) Model {
	return Model{com: com, ws: ws, actor: actor, readOnly: readOnly}
}

// SetDryRun makes every confirmed action a dry run: in a tabletop drill
// the kill switch is rehearsed, never pulled.
func (m *Model) SetDryRun(on bool) { m.dryRun = on }

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.rebuild()
}

// Loaded reports whether the playbook has been read once.
func (m Model) Loaded() bool { return m.loaded }

// Selected is the id of the selected step ("" when none).
func (m Model) Selected() string {
	if m.cur < 0 || m.cur >= len(m.refs) {
		return ""
	}
	return m.refs[m.cur].Step.ID
}

// State is the case state the pane shows (for tests).
func (m Model) State() incident.CaseState { return m.state }

// StepIDs are the playbook's step ids in order (the `:` line completes
// them).
func (m Model) StepIDs() []string {
	out := make([]string, len(m.refs))
	for i, r := range m.refs {
		out[i] = r.Step.ID
	}
	return out
}

// InDetail reports whether the keys move within the selected step.
func (m Model) InDetail() bool { return m.inDetail }

// Load reads the playbook and folds the journal again (on focus, and
// whenever the journal grows). The case variables are recomputed only when
// what they depend on (the subject and the recorded times) changed: with
// no subject named they come from running the detectors.
func (m *Model) Load() tea.Cmd {
	if m.ws == nil {
		return nil
	}
	m.seq++
	ws, ctx, seq := m.ws, m.com.Ctx, m.seq
	prevKey, prevVars := m.varsKey, m.vars
	return m.com.Cmd(func() tea.Msg {
		pb, err := ws.Playbook()
		if err != nil {
			return loadedMsg{seq: seq, err: err}
		}
		acts := configuredActions(ws)
		s, err := ws.State()
		if err != nil {
			return loadedMsg{seq: seq, pb: pb, err: err}
		}
		key := varsKey(s)
		if key == prevKey && prevVars != nil {
			return loadedMsg{seq: seq, pb: pb, actions: acts, state: s, vars: prevVars, varsKey: key}
		}
		cs, cerr := ws.Case(ctx, s)
		var vars playbook.Vars
		if cerr == nil {
			// guidance, checklists and saved queries name what the agent
			// acquired too (revoke px-s228 as well as its own)
			vars = cs.ActionVars()
		}
		return loadedMsg{seq: seq, pb: pb, actions: acts, state: s, vars: vars, varsKey: key, caseErr: cerr,
			kill: cs.HarnessKill, killSet: true} // zero on an error: no stale kill offered
	})
}

// varsKey is what the case variables depend on in the journal.
func varsKey(s incident.CaseState) string {
	var b strings.Builder
	b.WriteString(strings.Join(s.Subject, "\x00"))
	names := make([]string, 0, len(s.Times))
	for n := range s.Times {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		fmt.Fprintf(&b, "\x01%s=%s", n, s.Times[n].Format(time.RFC3339Nano))
	}
	return b.String()
}

// Update handles the pane's replies and, with focus, its keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.loaded = true
		m.err, m.caseErr = msg.err, msg.caseErr
		if msg.pb != nil {
			sel := m.Selected()
			m.pb, m.refs, m.actions = msg.pb, msg.pb.Steps(), msg.actions
			if i := m.indexOf(sel); i >= 0 {
				m.cur = i
			}
		}
		if msg.err == nil {
			m.state, m.vars, m.varsKey = msg.state, msg.vars, msg.varsKey
		}
		if msg.killSet {
			m.kill = msg.kill
		}
		m.rebuild()
		return m, nil
	case common.AnswerMsg:
		cmd := m.answer(msg)
		return m, cmd
	case planMsg:
		if msg.seq != m.planSeq {
			return m, nil
		}
		if msg.err != nil {
			return m, common.Send(common.ErrMsg{Err: msg.err})
		}
		m.plan, m.planStep = &msg.plan, msg.step
		m.Pending = &common.Ask{Kind: common.AskConfirm, Step: msg.step,
			Prompt: fmt.Sprintf("type %s to run %s (esc cancels): ", msg.plan.Confirm, msg.plan.Name)}
		if m.dryRun {
			m.Pending.Prompt = fmt.Sprintf("drill: type %s to dry-run %s, nothing runs (esc cancels): ", msg.plan.Confirm, msg.plan.Name)
		}
		m.rebuild()
		m.dtop = 0 // the commands first
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		if m.inDetail {
			m.scrollDoc(msg)
			return m, nil
		}
		if cur, moved := m.com.Keys.MoveCursor(msg, m.cur, len(m.refs), m.listRows()); moved {
			m.selectStep(cur)
		}
	}
	return m, nil
}

func (m Model) indexOf(id string) int {
	for i, r := range m.refs {
		if r.Step.ID == id {
			return i
		}
	}
	return -1
}

// step is the selected step and its state.
func (m Model) step() (playbook.StepRef, incident.StepState, bool) {
	if m.cur < 0 || m.cur >= len(m.refs) {
		return playbook.StepRef{}, incident.StepState{}, false
	}
	r := m.refs[m.cur]
	return r, m.state.Step(r.Step.ID), true
}

func (m *Model) selectStep(i int) {
	if i == m.cur {
		return
	}
	m.cur = i
	m.dcur, m.dtop, m.openItem = 0, 0, 0
	m.rebuild()
}

// rebuild renders the selected step for the detail's width and keeps the
// cursors inside what is there.
func (m *Model) rebuild() {
	m.cur = min(max(m.cur, 0), max(len(m.refs)-1, 0))
	var was line
	if m.dcur >= 0 && m.dcur < len(m.doc) {
		was = m.doc[m.dcur]
	}
	m.doc = nil
	if r, st, ok := m.step(); ok {
		_, dw := m.widths()
		m.doc = m.document(r, st, dw)
	}
	m.scrollList()
	// a new note or check result adds lines above: stay on the same item
	for i, l := range m.doc {
		if l.kind != kText && l.kind == was.kind && l.item == was.item && l.query == was.query && l.action == was.action && l.missing == was.missing {
			m.dtop += i - m.dcur
			m.dcur = i
			break
		}
	}
	if !m.actionable(m.dcur) {
		m.dcur = m.nextActionable(-1, 1)
	}
	m.clampDoc()
}

// answer acts on the reply to a question this pane asked.
func (m *Model) answer(msg common.AnswerMsg) tea.Cmd {
	a := msg.Ask
	if a.Kind == common.AskConfirm {
		plan := m.plan
		m.plan = nil
		m.rebuild()
		switch {
		case msg.Cancelled || plan == nil:
			return nil
		case msg.Value != plan.Confirm:
			return common.Send(common.StatusMsg{Text: fmt.Sprintf("not confirmed, nothing ran: type %s exactly to run %s", plan.Confirm, plan.Name)})
		}
		return m.runAction(a.Step, *plan, msg.Value)
	}
	if msg.Cancelled {
		return nil
	}
	switch a.Kind {
	case common.AskDoneAt:
		at, err := parseTime(msg.Value, m.ws.Now())
		if err != nil {
			return common.Send(common.ErrMsg{Err: err})
		}
		return m.setStep(a.Step, incident.StepDone, at, "")
	case common.AskSkip:
		if msg.Value == "" {
			return common.Send(common.StatusMsg{Text: "not skipped: a skip needs a reason (x asks again)"})
		}
		return m.setStep(a.Step, incident.StepSkipped, time.Time{}, msg.Value)
	}
	return nil
}

// parseTime reads the time a responder typed: RFC 3339, or empty for now.
func parseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return now, nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q: want RFC 3339, like %s (the step is not marked done)", s, now.UTC().Format(time.RFC3339))
}

// actionSet is what the workspace's cordon.yaml configures: the action
// templates by name, and the file to add one to.
type actionSet struct {
	known bool // the config was read: an action not in names is missing
	names map[string]bool
	file  string
}

// configuredActions reads the action templates of a workspace that has a
// config (a test's fake may not: then nothing is said missing).
func configuredActions(ws common.Casework) actionSet {
	type configured interface {
		Config() (*incident.Config, error)
	}
	c, ok := ws.(configured)
	if !ok {
		return actionSet{}
	}
	cfg, err := c.Config()
	if err != nil || cfg == nil {
		return actionSet{}
	}
	set := actionSet{known: true, names: map[string]bool{}, file: cfg.Path("cordon.yaml")}
	for n := range cfg.Actions {
		set.names[n] = true
	}
	return set
}
