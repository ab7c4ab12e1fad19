package tui

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/command"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/detail"
	"github.com/cordon-ir/cordon/tui/drillpane"
	"github.com/cordon-ir/cordon/tui/search"
	"github.com/cordon-ir/cordon/tui/sheet"
)

// Update routes: replies go to every pane (each keeps only its own), keys
// to the search bar or picker when open, else to the global bindings, else
// to the focused pane. A panic becomes an error on the status line.
func (m Model) Update(msg tea.Msg) (out tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			m.com.Logger.Error("update panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			m.err = fmt.Errorf("internal error: %v (the console keeps going; details in the --debug log)", r)
			out, cmd = m, nil
		}
	}()
	m, cmd = m.update(msg)
	m.detail.SetHighlight(m.timeline.HitTerms())
	if r := m.drill.Rows(m.com.Width); r != m.drillRows && m.com.Width > 0 {
		// an inject's text came or went: the body gives up or takes back rows
		cmd = tea.Batch(cmd, m.resize(m.com.Width, m.com.Height))
	}
	return m, cmd
}

func (m Model) update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		cmd := m.resize(msg.Width, msg.Height)
		return m, cmd
	case tea.KeyMsg:
		return m.handleKey(msg)
	case tea.MouseMsg:
		// the wheel scrolls what is on screen: the field picker over the
		// pane, nothing under the help
		switch {
		case m.showHelp:
			switch msg.Button {
			case tea.MouseButtonWheelDown:
				m.scrollHelp(3)
			case tea.MouseButtonWheelUp:
				m.scrollHelp(-3)
			}
			return m, nil
		case m.facet.IsOpen():
			var cmd tea.Cmd
			m.facet, cmd = m.facet.Update(msg)
			return m, cmd
		}
		return m.toFocused(msg)
	case common.ErrMsg:
		if msg.Err != nil {
			m.err, m.status = msg.Err, ""
		}
		return m, nil
	case common.StatusMsg:
		m.status = msg.Text
		return m, nil
	case common.OpenEventMsg:
		if m.focus != paneDetail {
			m.nav = m.nav.push(way{kind: wayEvent, pane: m.focus})
		}
		m.focus = paneDetail
		cmd := m.detail.Open(msg.Event)
		return m, cmd
	case detail.BackMsg:
		m.leaveEvent()
		return m, nil
	case detail.GroupMsg:
		w := way{kind: wayRelated, query: msg.Query.String(), ev: msg.Event, place: m.timeline.Place()}
		if i := m.nav.find(wayRelated); i >= 0 && m.timeline.Search() == m.nav[i].query {
			// a group of an event opened from a group: esc goes back
			// to this event, the timeline as it was before the first
			w.place = m.nav[i].place
		}
		m.nav = m.nav.drop(wayRelated).push(w)
		m.focus = paneTimeline
		m.status = "the related group in the timeline: esc goes back to the event"
		if !m.timeline.Filter().IsAll() {
			m.status = "the related group in the timeline (filter set aside): esc goes back to the event and the filter"
		}
		cmd := m.timeline.ShowRelated(msg.Query, msg.Label, msg.Event)
		return m, cmd
	case common.FilterMsg:
		from := m.focus
		m.focus = paneTimeline
		m.nav = m.nav.drop(wayRelated)
		if msg.Replace {
			// evidence shown for another pane (a finding, a check, a
			// claim): esc that clears it goes back there
			m.nav = m.nav.drop(wayFilter)
			if from != paneTimeline {
				m.nav = m.nav.push(way{kind: wayFilter, pane: from, filter: msg.Set})
			}
			cmd := m.timeline.SetFilter(msg.Set, msg.Label)
			return m, cmd
		}
		cmd := m.timeline.AddFilter(msg.Add)
		return m, cmd
	case common.ToggleMarkMsg:
		if m.marks == nil {
			m.err = fmt.Errorf("marks are off: %w", orUnknown(m.marksErr))
			return m, nil
		}
		return m, toggleMarkCmd(m.com, m.marks, m.actor, msg.Event)
	case markedMsg:
		if msg.err != nil {
			m.err = msg.err
			return m, nil
		}
		m.timeline.SetMarks(msg.marks)
		m.detail.SetMarks(msg.marks)
		m.status = fmt.Sprintf("unmarked (%d marks; ' jumps to the next)", len(msg.marks))
		if msg.on {
			m.status = fmt.Sprintf("marked (%d marks in marks.json; ' jumps to the next)", len(msg.marks))
		}
		return m, nil
	case countsMsg:
		m.counts, m.span = msg.c, msg.span
		m.clock = m.clock.ForSpan(msg.span)
		m.detail.SetClock(m.clock)
		m.agents.SetClock(m.clock)
		m.findings.SetClock(m.clock)
		m.indicators.SetClock(m.clock)
		m.evaluation.SetClock(m.clock)
		cmd := m.timeline.SetCounts(msg.c, msg.span, msg.refresh, msg.live)
		return m, cmd
	case ingestMsg:
		prev := m.progress
		m.progress = msg.u
		if m.sheet.IsOpen() && m.sheet.Title() == m.filesTitle {
			m.listFiles(true) // :files counts each round as it ends
		}
		bad, partial := notIngested(msg.u.Results)
		if was, _ := notIngested(prev.Results); len(bad) > len(was) && m.status == "" {
			// said while the console runs, not only after q
			m.status = bad[0].String()
			if !bad[0].partial {
				m.status = "not ingested: " + bad[0].String()
			}
			if len(bad) > 1 {
				m.status = fmt.Sprintf("%s (:files lists them): %s", unreadCount(len(bad), partial), bad[0])
			}
		}
		// A pass that ended (the ingest, or a round of following) settles
		// the counts: the sparkline's denied marks are redrawn in full.
		roundEnded := msg.u.Following && (msg.u.Added > prev.Added || !prev.Following || msg.u.Judged > prev.Judged)
		cmds := []tea.Cmd{countsCmd(m.com, m.cs, true, !msg.u.Done && !roundEnded)}
		if roundEnded {
			// A pass over followed files ended: agents and findings
			// change with new evidence, as they do when an ingest ends.
			cmds = append(cmds, m.reloadCase()...)
		}
		if msg.u.Done {
			m.ingesting = false
			cmds = append(cmds, m.reloadCase()...)
			if msg.u.Err != nil && !errors.Is(msg.u.Err, m.com.Ctx.Err()) {
				m.err = fmt.Errorf("ingest: %w", msg.u.Err)
			}
		} else {
			cmds = append(cmds, ingestCmd(m.com, m.watch))
		}
		return m, tea.Batch(cmds...)
	case drillpane.GrewMsg:
		// the drill released evidence: refresh as after a followed pass
		cmds := append([]tea.Cmd{countsCmd(m.com, m.cs, true, true)}, m.reloadCase()...)
		return m, tea.Batch(cmds...)
	case search.SubmitMsg:
		m.focus = paneTimeline
		m.nav = m.nav.drop(wayRelated)
		cmd := m.timeline.SetSearch(msg.Query)
		if msg.Query != "" {
			cmd = tea.Batch(cmd, addHistoryCmd(m.com, m.history, msg.Query))
		}
		return m, cmd
	case historyMsg:
		if msg.err != nil {
			// not case state: say so, and keep searching
			m.status = "search history: " + msg.err.Error()
		}
		switch {
		case msg.err != nil && msg.list == nil:
		case msg.added:
			// the file holds this console's queries and other consoles'
			m.search.SetHistory(msg.list)
		default:
			// loaded at open: what was run before it arrived is newer
			m.search.SetHistory(append(slices.Clip(msg.list), m.search.History()...))
		}
		return m, nil
	case common.SearchMsg:
		m.focus = paneTimeline
		m.nav = m.nav.drop(wayRelated)
		cmd := m.timeline.SetSearch(msg.Query)
		return m, cmd
	case search.CancelMsg:
		return m, nil
	case command.SubmitMsg:
		return m.runCommand(msg.Line)
	case sheet.OpenMsg:
		m.focus = paneTimeline
		return m, m.timeline.JumpTo(msg.Event)
	case evidenceMsg:
		switch {
		case msg.err != nil:
			m.err = fmt.Errorf("finding evidence: %w", msg.err)
			return m, nil
		case len(msg.ids) == 0:
			m.status = "no finding cites any event"
			return m, nil
		}
		return m, m.timeline.Seek(evidence.IDs(msg.ids...), msg.backward, "finding evidence")
	case common.ShowEventMsg:
		return m, eventCmd(m.com, m.cs, msg.ID)
	case common.AnswerMsg:
		if msg.Cancelled {
			m.status = "cancelled: nothing was written"
		}
		if msg.Ask.Kind == common.AskNote && !msg.Cancelled {
			if msg.Value == "" {
				m.status = "no note: it was empty"
				return m, nil
			}
			return m, noteCmd(m.com, m.cs, m.actor, msg.Ask.Step, msg.Ask.Event, msg.Value)
		}
	case common.WrittenMsg:
		if msg.Err != nil {
			m.err, m.status = msg.Err, ""
		} else {
			m.status = msg.Text
		}
		cmd := m.journal.Poll()
		return m, cmd
	case common.JournalChangedMsg:
		m.drill.SetJournal(m.journal.Entries())
		m.detail.SetNotes(m.journal.Entries())
		cmd := m.steps.Load()
		return m, cmd
	}
	return m.toAll(msg)
}

// askNote opens the note input for the event under the cursor.
func (m Model) askNote() (Model, tea.Cmd) {
	switch {
	case m.actor.Observer:
		m.status = common.ReadOnlyText()
		return m, nil
	}
	ev, ok := m.timeline.Selected()
	if m.focus == paneDetail {
		ev, ok = m.detail.Event(), m.detail.Has()
	}
	if !ok {
		m.status = "no event selected to note"
		return m, nil
	}
	cmd := m.prompt.Open(common.Ask{Kind: common.AskNote, Event: ev.ID, Prompt: "note on event " + ev.ID + ": "})
	return m, cmd
}

// reloadCase reloads what new evidence changes: the agents, and the
// findings and indicators once shown (the findings also while in view).
func (m *Model) reloadCase() []tea.Cmd {
	cmds := []tea.Cmd{m.agents.Load()}
	if m.findings.Loaded() || m.focus == paneFindings {
		cmds = append(cmds, m.findings.Load())
	}
	if m.indicators.Loaded() {
		cmds = append(cmds, m.indicators.Load())
	}
	if m.evaluation.Loaded() {
		cmds = append(cmds, m.evaluation.Load())
	}
	return cmds
}

// toAll hands a reply to every pane; each acts only on its own messages.
func (m Model) toAll(msg tea.Msg) (Model, tea.Cmd) {
	var cmds [11]tea.Cmd
	m.steps, cmds[6] = m.steps.Update(msg)
	if a, ok := m.steps.TakeAsk(); ok { // an action's plan arrived: confirm it
		cmds[8] = m.prompt.Open(a)
	}
	m.journal, cmds[7] = m.journal.Update(msg)
	m.findings, cmds[5] = m.findings.Update(msg)
	m.indicators, cmds[9] = m.indicators.Update(msg)
	m.evaluation, cmds[10] = m.evaluation.Update(msg)
	m.timeline, cmds[0] = m.timeline.Update(msg)
	m.detail, cmds[1] = m.detail.Update(msg)
	m.agents, cmds[2] = m.agents.Update(msg)
	m.facet, cmds[3] = m.facet.Update(msg)
	m.search, cmds[4] = m.search.Update(msg)
	var drillCmd tea.Cmd
	m.drill, drillCmd = m.drill.Update(msg)
	assistCmd := m.toAssist(msg)
	return m, tea.Batch(append(cmds[:], drillCmd, assistCmd)...)
}

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	if msg.Alt && !msg.Paste && escThen(msg.Type) {
		// No binding uses alt: this is esc and a key that arrived in one
		// read (esc then j, esc then tab, typed quickly or over a slow link).
		m, cmd := m.handleKey(tea.KeyMsg{Type: tea.KeyEsc})
		msg.Alt = false
		m, cmd2 := m.handleKey(msg)
		return m, tea.Batch(cmd, cmd2)
	}
	if msg.Type == tea.KeyRunes && len(msg.Runes) > 1 && !msg.Paste && !m.search.IsOpen() && !m.prompt.IsOpen() && !m.command.IsOpen() {
		// Bubble Tea reads keys that arrive together (a slow SSH link,
		// tmux send-keys) as one message "jjj"; outside an input each is
		// its own key press.
		cmds := make([]tea.Cmd, 0, len(msg.Runes))
		for _, r := range msg.Runes {
			var cmd tea.Cmd
			m, cmd = m.handleKey(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}, Alt: msg.Alt})
			cmds = append(cmds, cmd)
		}
		return m, tea.Batch(cmds...)
	}
	if key.Matches(msg, k.ForceQuit) {
		return m, tea.Quit
	}
	if m.search.IsOpen() {
		var cmd tea.Cmd
		m.search, cmd = m.search.Update(msg)
		return m, cmd
	}
	if m.prompt.IsOpen() {
		m.status = ""
		var cmd tea.Cmd
		m.prompt, cmd = m.prompt.Update(msg)
		return m, cmd
	}
	if m.command.IsOpen() {
		m.status = ""
		var cmd tea.Cmd
		m.command, cmd = m.command.Update(msg)
		return m, cmd
	}
	m.status = ""
	if m.showHelp {
		switch {
		case key.Matches(msg, k.Help, k.Back, k.Quit):
			m.showHelp, m.helpTop = false, 0
		case key.Matches(msg, k.Down):
			m.scrollHelp(1)
		case key.Matches(msg, k.Up):
			m.scrollHelp(-1)
		case key.Matches(msg, k.PageDown):
			m.scrollHelp(m.helpRows() - 1)
		case key.Matches(msg, k.PageUp):
			m.scrollHelp(-(m.helpRows() - 1))
		case key.Matches(msg, k.Top):
			m.helpTop = 0
		case key.Matches(msg, k.Bottom):
			m.scrollHelp(len(m.helpLines()))
		}
		return m, nil
	}
	if m.facet.IsOpen() {
		var cmd tea.Cmd
		m.facet, cmd = m.facet.Update(msg)
		return m, cmd
	}
	if m.sheet.IsOpen() {
		if key.Matches(msg, k.Command) {
			m.sheet = sheet.New(m.com) // : from a list: the list gives way
			m.sheet.SetSize(m.com.Width, m.com.Height)
		} else {
			var cmd tea.Cmd
			m.sheet, cmd = m.sheet.Update(msg)
			return m, cmd
		}
	}
	if m.err != nil && key.Matches(msg, k.Back) {
		m.err = nil
		return m, nil
	}
	if m.focus == paneTimeline && key.Matches(msg, k.Back) {
		if i := m.nav.find(wayRelated); i >= 0 && m.timeline.Search() == m.nav[i].query {
			// back from a related group to its event, the timeline as it was
			var r way
			m.nav, r, _ = m.nav.take(wayRelated)
			cmds := []tea.Cmd{m.timeline.Restore(r.place)}
			if m.detail.Event().ID != r.ev.ID {
				cmds = append(cmds, m.detail.Open(r.ev))
			}
			m.focus = paneDetail
			m.status = "back to the event; the timeline shows what it did before"
			return m, tea.Batch(cmds...)
		}
		if i := m.nav.find(wayFilter); i >= 0 && m.timeline.Search() == "" && m.timeline.Filter().Equal(m.nav[i].filter) {
			// esc clears the evidence filter and goes back where it came from
			var f way
			m.nav, f, _ = m.nav.take(wayFilter)
			cmd := m.timeline.SetFilter(evidence.All(), "")
			m.focus = f.pane
			return m, cmd
		}
	}
	if m.focus == paneDetail && key.Matches(msg, k.Back) && !m.detail.CanGoBack() {
		// leave the event pane here, not by a message, so that a key typed
		// right after esc already goes to the pane it returns to
		m.leaveEvent()
		return m, nil
	}
	if d, cmd, ok := m.drill.Control(msg); ok { // the drill's clock keys, whatever the focus
		m.drill = d
		if a, ok := m.drill.TakeAsk(); ok {
			cmd = tea.Batch(cmd, m.prompt.Open(a))
		}
		return m, cmd
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
		return m, nil
	case key.Matches(msg, k.NextPane):
		cmd := m.cycle(1)
		return m, cmd
	case key.Matches(msg, k.PrevPane):
		cmd := m.cycle(-1)
		return m, cmd
	case key.Matches(msg, k.Search):
		m.focus = paneTimeline
		cmd := m.search.Open(m.timeline.Search())
		return m, cmd
	case key.Matches(msg, k.Facet):
		m.facet.Open(m.timeline.Query())
		return m, nil
	case key.Matches(msg, k.Note) && (m.focus == paneTimeline || m.focus == paneDetail):
		return m.askNote()
	case key.Matches(msg, k.Assist) && m.focus != paneAssist:
		return m.openAssistant()
	case key.Matches(msg, k.Time) && m.focus != paneJournal: // t filters the journal by type
		return m.cycleTime()
	case key.Matches(msg, k.Command):
		m.command.SetVerbs(m.verbs())
		cmd := m.command.Open()
		return m, cmd
	}
	if m, cmd, ok := m.jumpKey(msg); ok {
		return m, cmd
	}
	return m.toFocused(msg)
}

// escThen reports a key that, with alt, is esc and that key read together:
// a rune, tab, enter or an arrow up or down. Alt+backspace and alt+arrows
// left and right stay what the inputs make of them (word moves).
func escThen(t tea.KeyType) bool {
	switch t {
	case tea.KeyRunes, tea.KeyTab, tea.KeyShiftTab, tea.KeyEnter, tea.KeyUp, tea.KeyDown:
		return true
	}
	return false
}

// leaveEvent pops the event pane's way back: focus returns to the pane the
// event was opened from (the timeline when it was reached by tab).
func (m *Model) leaveEvent() {
	var w way
	m.nav, w, _ = m.nav.take(wayEvent)
	m.focus = w.pane
}

func orUnknown(err error) error {
	if err == nil {
		return errors.New("no marks store")
	}
	return err
}
