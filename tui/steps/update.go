package steps

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/playbook"
	"github.com/cordon-ir/cordon/tui/common"
)

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	if m.ws == nil || !m.loaded || len(m.refs) == 0 {
		return m, nil
	}
	r, st, _ := m.step()
	id := r.Step.ID
	writes := key.Matches(msg, k.Start, k.Done, k.Skip, k.Check, k.CheckAll, k.StepNote) ||
		// space only ticks on a checklist item (elsewhere it pages), but an
		// observer is told why it never ticks
		key.Matches(msg, k.Toggle) && (m.readOnly || m.inDetail && m.lineKind() == kItem)
	if writes && m.readOnly {
		return m, common.Send(common.StatusMsg{Text: common.ReadOnlyText()})
	}
	switch {
	case key.Matches(msg, k.Start):
		return m, m.setStep(id, incident.StepStarted, time.Time{}, "")
	case key.Matches(msg, k.Done):
		if s := r.Step.Sets; s != "" {
			// The time the evidence shows (the stop the step's own check
			// found) rather than now: an incident is often worked after
			// the fact, and every later check counts from this time.
			at, from := m.ws.Now(), "now"
			switch c := st.Check; {
			case c != nil && c.Status == incident.CheckVerified && !c.First.IsZero():
				at, from = c.First, "as its check found"
			case s == playbook.VarContainedAt && !m.kill.IsZero():
				// the issuer's record of the kill, offered, never taken
				at, from = m.kill, "the ledger's kill"
			}
			m.Pending = &common.Ask{
				Kind: common.AskDoneAt, Step: id,
				Prompt: fmt.Sprintf("%s done — %s (RFC 3339, %s): ", id, s, from),
				Value:  at.UTC().Format(time.RFC3339Nano),
			}
			return m, nil
		}
		return m, m.setStep(id, incident.StepDone, time.Time{}, "")
	case key.Matches(msg, k.Skip):
		m.Pending = &common.Ask{
			Kind: common.AskSkip, Step: id, Prompt: "skip " + id + " — why? ",
			Placeholder: "the reason goes in the journal",
		}
		return m, nil
	case key.Matches(msg, k.Check):
		if r.Step.Check == nil {
			return m, common.Send(common.StatusMsg{Text: id + " has no evidence check (C runs every check)"})
		}
		return m, m.check(id)
	case key.Matches(msg, k.CheckAll):
		return m, m.check()
	case key.Matches(msg, k.StepNote):
		m.Pending = &common.Ask{Kind: common.AskNote, Step: id, Prompt: "note on " + id + ": "}
		return m, nil
	}
	if !m.inDetail {
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.refs), m.listRows()); moved {
			m.selectStep(cur)
			return m, nil
		}
		if key.Matches(msg, k.Open) {
			m.inDetail = true
			m.rebuild()
		}
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Back):
		if m.openItem > 0 {
			m.openItem = 0 // esc folds an open item first
			m.rebuild()
			return m, nil
		}
		m.inDetail = false
		return m, nil
	case key.Matches(msg, k.Toggle) && m.lineKind() == kItem:
		i := m.doc[m.dcur].item
		return m, m.toggle(id, i, !st.Checked[i])
	case key.Matches(msg, k.Open):
		cmd := m.open(r.Step.ID)
		return m, cmd
	case key.Matches(msg, k.Down):
		m.moveDoc(1)
	case key.Matches(msg, k.Up):
		m.moveDoc(-1)
	case key.Matches(msg, k.PageDown):
		m.pageDoc(m.docRows() - 1)
	case key.Matches(msg, k.PageUp):
		m.pageDoc(-(m.docRows() - 1))
	case key.Matches(msg, k.Top):
		m.dtop, m.dcur = 0, m.nextActionable(-1, 1)
		m.ensureVisible()
	case key.Matches(msg, k.Bottom):
		m.dtop = len(m.doc)
		m.dcur = m.nextActionable(len(m.doc), -1)
		m.clampDoc()
	}
	return m, nil
}

// open acts on the selected line of the step: a saved query runs in the
// timeline, the check shows its evidence, a checklist item opens under its
// line (its whole text, who ticked it and when; enter again folds it —
// space is what ticks), an action shows its exact commands and asks for
// the agent id.
func (m *Model) open(stepID string) tea.Cmd {
	if m.dcur < 0 || m.dcur >= len(m.doc) {
		return nil
	}
	l := m.doc[m.dcur]
	switch l.kind {
	case kQuery:
		if l.query == "" {
			return common.Send(common.StatusMsg{Text: "this query " + l.missing + " (name the subject: cordon subject)"})
		}
		return tea.Batch(common.Send(common.SearchMsg{Query: l.query}),
			common.Send(common.StatusMsg{Text: "saved query of " + stepID + " (esc clears)"}))
	case kCheck:
		if len(l.events) == 0 {
			return common.Send(common.StatusMsg{Text: "the check cites no event: c runs it again"})
		}
		label := "check " + stepID + " · " + common.EventsLabel(len(l.events))
		return tea.Batch(common.Send(common.FilterMsg{Set: evidence.IDs(l.events...), Replace: true, Label: label}),
			common.Send(common.StatusMsg{Text: fmt.Sprintf("timeline filtered to the %d events the check of %s cites (esc clears)", len(l.events), stepID)}))
	case kItem:
		if m.openItem == l.item+1 {
			m.openItem = 0
		} else {
			m.openItem = l.item + 1
		}
		m.rebuild()
		return nil
	case kAction:
		if m.readOnly {
			return common.Send(common.StatusMsg{Text: common.ReadOnlyText()})
		}
		return m.planAction(stepID, l.action)
	}
	return nil
}

// planMsg is an action filled in for the case, to show before it runs.
type planMsg struct {
	seq  int
	step string
	plan incident.ActionPlan
	err  error
}

// planAction fills an action's commands; the pane shows them and asks for
// the agent id before anything runs.
func (m *Model) planAction(stepID, name string) tea.Cmd {
	m.planSeq++
	ws, ctx, seq := m.ws, m.com.Ctx, m.planSeq
	return m.com.Cmd(func() tea.Msg {
		p, err := ws.PlanAction(ctx, stepID, name)
		if err != nil {
			err = fmt.Errorf("action %s: %w", name, err)
		}
		return planMsg{seq: seq, step: stepID, plan: p, err: err}
	})
}

// runAction runs a confirmed plan; the journal keeps the commands, exit
// codes and output, failed runs included.
func (m Model) runAction(stepID string, p incident.ActionPlan, confirm string) tea.Cmd {
	ws, actor, dry := m.ws, m.actor, m.dryRun
	return m.write("action "+p.Name, func(ctx context.Context) (string, error) {
		runs, err := ws.RunAction(ctx, actor, stepID, p, confirm, dry)
		if err != nil {
			return "", err
		}
		if dry {
			return fmt.Sprintf("drill: %s dry run, %d command(s) recorded in the journal, none ran", p.Name, len(runs)), nil
		}
		codes := make([]string, len(runs))
		for i, r := range runs {
			codes[i] = fmt.Sprint(r.ExitCode)
		}
		return fmt.Sprintf("%s ran %d command(s), exit %s; output in the journal", p.Name, len(runs), strings.Join(codes, ", ")), nil
	})
}

// write runs one journal write in a command and reports it as WrittenMsg.
func (m Model) write(what string, f func(ctx context.Context) (string, error)) tea.Cmd {
	ctx := m.com.Ctx
	return m.com.Cmd(func() tea.Msg {
		text, err := f(ctx)
		if err != nil {
			return common.WrittenMsg{Err: fmt.Errorf("%s: %w", what, err)}
		}
		return common.WrittenMsg{Text: text}
	})
}

func (m Model) setStep(id string, status incident.StepStatus, at time.Time, text string) tea.Cmd {
	ws, actor := m.ws, m.actor
	verb := map[incident.StepStatus]string{incident.StepStarted: "start", incident.StepDone: "mark done", incident.StepSkipped: "skip"}[status]
	return m.write(verb+" "+id, func(ctx context.Context) (string, error) {
		e, err := ws.SetStep(ctx, actor, id, status, at, text)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("journal #%d: %s %s", e.Seq, id, status), nil
	})
}

func (m Model) toggle(id string, item int, done bool) tea.Cmd {
	ws, actor := m.ws, m.actor
	return m.write("checklist of "+id, func(ctx context.Context) (string, error) {
		e, err := ws.SetChecklist(ctx, actor, id, item, done)
		if err != nil {
			return "", err
		}
		state := "ticked"
		if !done {
			state = "unticked"
		}
		return fmt.Sprintf("journal #%d: %s item %d of %s", e.Seq, state, item+1, id), nil
	})
}

// check runs the evidence checks of ids (none: all of them).
func (m Model) check(ids ...string) tea.Cmd {
	ws, actor, setters := m.ws, m.actor, m.Setters()
	what := "checks"
	if len(ids) == 1 {
		what = "check of " + ids[0]
	}
	return m.write(what, func(ctx context.Context) (string, error) {
		res, err := ws.Check(ctx, actor, ids...)
		if err != nil {
			return "", err
		}
		return CheckSummary(res, setters), nil
	})
}

// waitsOn names the step a check that did not run waits on, "" for any
// other.
func waitsOn(r incident.CheckResult, setters map[string]string) string {
	if r.Status != incident.CheckNotRun {
		return ""
	}
	for v, step := range setters {
		if strings.HasPrefix(r.Detail, "needs "+v+":") {
			return " — mark " + step + " done first"
		}
	}
	return ""
}

// Setters are the steps that set each time variable, by variable
// (contained_at: contain.stop), for saying which step a check waits on.
func (m Model) Setters() map[string]string {
	out := map[string]string{}
	for _, r := range m.refs {
		if s := r.Step.Sets; s != "" && out[s] == "" {
			out[s] = r.Step.ID
		}
	}
	return out
}

// CheckSummary is the status line after checks ran: one check's result,
// or the counts of many and, when some did not run, why the first did not
// ("contain.verify needs contained_at: mark contain.stop done first").
func CheckSummary(res []incident.CheckResult, setters map[string]string) string {
	if len(res) == 1 {
		return res[0].Step + ": " + res[0].Summary() + waitsOn(res[0], setters)
	}
	counts := map[incident.CheckStatus]int{}
	why, more := "", 0
	for _, r := range res {
		counts[r.Status]++
		if r.Status != incident.CheckNotRun || r.Detail == "" {
			continue
		}
		if why == "" {
			why = r.Step + " " + r.Detail
			for v, step := range setters {
				if strings.HasPrefix(r.Detail, "needs "+v+":") {
					why = fmt.Sprintf("%s needs %s: mark %s done first", r.Step, v, step)
				}
			}
		} else {
			more++
		}
	}
	s := fmt.Sprintf("%d checks: %d verified, %d NOT VERIFIED, %d no evidence, %d not run", len(res),
		counts[incident.CheckVerified], counts[incident.CheckNotVerified], counts[incident.CheckNoEvidence], counts[incident.CheckNotRun])
	if why != "" {
		s += " — " + why
		if more > 0 {
			s += fmt.Sprintf(" (and %d more: the Playbook pane says each)", more)
		}
	}
	return s
}

// Detail cursor: it rests on actionable lines; past the first or last one
// it scrolls, so the guidance below the items can be read with j.

func (m Model) actionable(i int) bool {
	return i >= 0 && i < len(m.doc) && m.doc[i].kind != kText
}

func (m Model) lineKind() int {
	if m.dcur < 0 || m.dcur >= len(m.doc) {
		return kText
	}
	return m.doc[m.dcur].kind
}

// nextActionable is the first actionable line after from in direction d,
// or -1.
func (m Model) nextActionable(from, d int) int {
	for i := from + d; i >= 0 && i < len(m.doc); i += d {
		if m.actionable(i) {
			return i
		}
	}
	return -1
}

func (m *Model) moveDoc(d int) {
	rows := m.docRows()
	visible := m.dcur >= m.dtop && m.dcur < m.dtop+rows
	next := m.nextActionable(m.dcur, d)
	if m.dcur < 0 || !visible || next < 0 {
		m.dtop += d
		m.clampDoc()
		return
	}
	m.dcur = next
	m.ensureVisible()
}

// ensureVisible scrolls the detail so that its cursor shows.
func (m *Model) ensureVisible() {
	if m.dcur >= 0 {
		if m.dcur < m.dtop {
			m.dtop = m.dcur
		}
		if rows := m.docRows(); m.dcur >= m.dtop+rows {
			m.dtop = m.dcur - rows + 1
		}
	}
	m.clampDoc()
}

func (m *Model) pageDoc(d int) {
	m.dtop += d
	m.clampDoc()
	if m.dcur < m.dtop || m.dcur >= m.dtop+m.docRows() {
		// keep a selection on screen when one is there
		if i := m.nextActionable(m.dtop-1, 1); i >= 0 && i < m.dtop+m.docRows() {
			m.dcur = i
		}
	}
}

func (m *Model) scrollDoc(msg tea.MouseMsg) {
	switch msg.Button {
	case tea.MouseButtonWheelDown:
		m.dtop += 3
	case tea.MouseButtonWheelUp:
		m.dtop -= 3
	}
	m.clampDoc()
}

func (m *Model) clampDoc() {
	m.dtop = max(min(m.dtop, len(m.doc)-m.docRows()), 0)
}
