package detail

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
)

// BackMsg says the pane has nothing left to go back to: the root returns to
// the pane the event was opened from.
type BackMsg struct{}

// GroupMsg asks the root to show a related group in the timeline: its
// query as the search, Label in the header, the cursor at Event's moment.
type GroupMsg struct {
	Query evidence.Query
	Label string
	Event evidence.Event
}

// relatedMsg carries the events linked to the shown one.
type relatedMsg struct {
	seq    int
	groups []attribution.Related
	err    error
}

// attributionMsg carries the shown event's attribution path.
type attributionMsg struct {
	seq  int
	path string
	err  error
}

// Model is the event pane.
type Model struct {
	com   common.Common
	store evidence.Reader

	ev    evidence.Event
	has   bool
	stack []evidence.Event // events opened before this one; esc returns

	related  []attribution.Related
	relState string
	attr     string // attribution path, "" when none applies
	seq      int

	clock    common.Clock
	marks    map[string]bool
	hl       []string            // the timeline's search words, highlighted
	notes    map[string][]string // event id -> its journal notes, oldest first
	lines    []line
	cur, top int
}

// New returns an empty event pane.
func New(com common.Common, store evidence.Reader) Model {
	return Model{com: com, store: store, marks: map[string]bool{}}
}

// SetSize sets the pane's size and lays the document out again.
func (m *Model) SetSize(w, h int) {
	if w != m.com.Width {
		m.com = m.com.SetSize(w, h)
		m.rebuild()
	}
	m.com = m.com.SetSize(w, h)
	m.clamp()
}

// Has reports whether an event is open.
func (m Model) Has() bool { return m.has }

// CanGoBack reports whether esc returns to an event opened before.
func (m Model) CanGoBack() bool { return len(m.stack) > 0 }

// Event returns the open event.
func (m Model) Event() evidence.Event { return m.ev }

// Related returns the groups of events linked to the open event, as far
// as they have been found.
func (m Model) Related() []attribution.Related { return m.related }

// SetClock sets how times are shown.
func (m *Model) SetClock(c common.Clock) {
	if c != m.clock {
		m.clock = c
		m.rebuild()
	}
}

// SetMarks takes the marks after a change.
func (m *Model) SetMarks(list []incident.Mark) {
	m.marks = make(map[string]bool, len(list))
	for _, k := range list {
		m.marks[k.ID] = true
	}
}

// SetHighlight takes the words of the timeline's search: the event view
// marks them where they occur.
func (m *Model) SetHighlight(terms []string) { m.hl = terms }

// SetNotes takes the journal: the notes on the open event show under its
// fields, so that what a responder wrote about it is read with it.
func (m *Model) SetNotes(entries []journal.Entry) {
	notes := map[string][]string{}
	for _, e := range entries {
		if e.Type == journal.EntryNote && e.Event != "" {
			notes[e.Event] = append(notes[e.Event], fmt.Sprintf("#%d %s %s: %s", e.Seq, e.Time.UTC().Format("01-02 15:04"), e.Actor.Name, e.Text))
		}
	}
	changed := len(notes[m.ev.ID]) != len(m.notes[m.ev.ID])
	m.notes = notes
	if changed {
		m.rebuild()
	}
}

// Notes are the journal's notes on the open event (for tests).
func (m Model) Notes() []string { return m.notes[m.ev.ID] }

// Open shows ev, forgetting the events opened before it.
func (m *Model) Open(ev evidence.Event) tea.Cmd {
	m.stack = m.stack[:0]
	return m.show(ev)
}

func (m *Model) show(ev evidence.Event) tea.Cmd {
	m.ev, m.has = ev, true
	m.related, m.relState, m.attr = nil, "looking for related events…", ""
	m.seq++
	m.cur, m.top = 0, 0
	m.rebuild()
	ctx, st, seq := m.com.Ctx, m.store, m.seq
	return tea.Batch(m.com.Cmd(func() tea.Msg {
		g, err := attribution.RelatedEvents(ctx, st, ev)
		return relatedMsg{seq: seq, groups: g, err: err}
	}), m.com.Cmd(func() tea.Msg {
		p, err := attribution.Path(ctx, st, ev)
		return attributionMsg{seq: seq, path: p, err: err}
	}))
}

func (m *Model) rebuild() {
	if !m.has {
		m.lines = nil
		return
	}
	m.lines = build(m.ev, m.attr, m.notes[m.ev.ID], m.related, m.relState, m.clock, max(m.com.Width-1, 20))
	m.clamp()
}

// Update handles related-event replies and, with focus, the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case relatedMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.related, m.relState = msg.groups, ""
		if msg.err != nil {
			m.relState = "related events: " + msg.err.Error()
		} else if len(msg.groups) == 0 {
			m.relState = "no events share its call, process, session, or agent within 30 s"
		}
		m.rebuild()
		return m, nil
	case attributionMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.attr = msg.path
		if msg.err != nil {
			m.attr = "attribution: " + msg.err.Error()
		}
		m.rebuild()
		return m, nil
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.scroll(-3)
		case tea.MouseButtonWheelDown:
			m.scroll(3)
		}
		return m, nil
	case tea.KeyMsg:
		return m.handleKey(msg)
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	switch {
	case key.Matches(msg, k.Down):
		m.moveTo(m.cur + 1)
	case key.Matches(msg, k.Up):
		m.moveTo(m.cur - 1)
	case key.Matches(msg, k.PageDown):
		m.scroll(m.com.Height - 1)
	case key.Matches(msg, k.PageUp):
		m.scroll(-(m.com.Height - 1))
	case key.Matches(msg, k.Top):
		m.moveTo(0)
	case key.Matches(msg, k.Bottom):
		m.moveTo(len(m.lines) - 1)
	case key.Matches(msg, k.NextMatch):
		m.nextLink(1)
	case key.Matches(msg, k.PrevMatch):
		m.nextLink(-1)
	case key.Matches(msg, k.Open):
		l, ok := m.line()
		switch {
		case ok && l.role == link:
			m.stack = append(m.stack, m.ev)
			cmd := m.show(l.ev)
			return m, cmd
		case ok && l.role == group && l.rel < len(m.related):
			g := m.related[l.rel]
			return m, common.Send(GroupMsg{Query: g.Query, Label: GroupLabel(m.ev, g), Event: m.ev})
		}
		return m, common.Send(common.StatusMsg{Text: "enter opens a related event, or a group's header shows the group in the timeline: n/N jump to them"})
	case key.Matches(msg, k.Mark):
		ev := m.ev
		if l, ok := m.line(); ok && l.role == link {
			ev = l.ev
		}
		return m, common.Send(common.ToggleMarkMsg{Event: ev})
	case key.Matches(msg, k.Back):
		if n := len(m.stack); n > 0 {
			prev := m.stack[n-1]
			m.stack = m.stack[:n-1]
			cmd := m.show(prev)
			return m, cmd
		}
		return m, common.Send(BackMsg{})
	}
	return m, nil
}

func (m *Model) line() (line, bool) {
	if m.cur < 0 || m.cur >= len(m.lines) {
		return line{}, false
	}
	return m.lines[m.cur], true
}

// GroupLabel names a related group in the timeline's header: the link
// first, which a narrow header must keep, then the event it is related to
// ("same agent agent-7 ±30s · of tool_call 10:04:12"); the header's hit
// count says how many. The timeline shows the whole group, so a session's
// "(nearest)" is dropped.
func GroupLabel(ev evidence.Event, g attribution.Related) string {
	why := strings.TrimSuffix(g.Why, " (nearest)")
	return fmt.Sprintf("%s · of %s %s", why, ev.Kind, ev.Time.UTC().Format("15:04:05"))
}

// nextLink moves the cursor to the next (or previous) related event or
// group header.
func (m *Model) nextLink(d int) {
	for i := m.cur + d; i >= 0 && i < len(m.lines); i += d {
		if r := m.lines[i].role; r == link || r == group {
			m.moveTo(i)
			return
		}
	}
}

func (m *Model) moveTo(i int) {
	m.cur = min(max(i, 0), max(len(m.lines)-1, 0))
	m.clamp()
}

// scroll moves the view and the cursor together by d lines.
func (m *Model) scroll(d int) {
	m.top += d
	m.cur += d
	m.clamp()
}

func (m *Model) clamp() {
	h := max(m.com.Height, 1)
	m.cur = min(max(m.cur, 0), max(len(m.lines)-1, 0))
	if m.cur < m.top {
		m.top = m.cur
	}
	if m.cur >= m.top+h {
		m.top = m.cur - h + 1
	}
	m.top = max(min(m.top, len(m.lines)-h), 0)
}
