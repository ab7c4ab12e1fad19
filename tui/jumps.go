package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/playbook"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/sheet"
)

// walkFields are the links w follows through time, in the order it tries
// them on the selected event.
var walkFields = []string{"call_id", "exec_id", "credential"}

// maxEvidenceIDs bounds the finding evidence { and } jump between: the
// findings of a million events cite more ids than one query should hold.
const maxEvidenceIDs = 10000

// evidenceMsg carries the ids the findings cite, for { and }.
type evidenceMsg struct {
	ids      []string
	backward bool
	err      error
}

func evidenceCmd(m *Model, backward bool) tea.Cmd {
	h, ctx := m.cs, m.com.Ctx
	return m.com.Cmd(func() tea.Msg {
		fs, err := h.Findings(ctx)
		if err != nil {
			return evidenceMsg{err: err}
		}
		seen := map[string]bool{}
		var ids []string
		for _, f := range fs {
			for _, id := range f.Events {
				if !seen[id] && len(ids) < maxEvidenceIDs {
					seen[id] = true
					ids = append(ids, id)
				}
			}
		}
		return evidenceMsg{ids: ids, backward: backward}
	})
}

// jumpKey handles the keys that move the timeline to another event by
// what it is: the next denial, the next finding evidence, a walk, the
// clock's origin. ok is false for any other key.
func (m Model) jumpKey(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	k := m.com.Keys
	switch {
	case m.focus != paneTimeline && m.focus != paneDetail:
		return m, nil, false
	case key.Matches(msg, k.NextDenial, k.PrevDenial):
		m.focus = paneTimeline
		cmd := m.timeline.Seek(evidence.Term("decision", evidence.DecisionDeny), key.Matches(msg, k.PrevDenial), "denial")
		return m, cmd, true
	case key.Matches(msg, k.NextEvidence, k.PrevEvidence):
		m.focus = paneTimeline
		return m, evidenceCmd(&m, key.Matches(msg, k.PrevEvidence)), true
	case key.Matches(msg, k.Walk):
		m, cmd := m.walk("")
		return m, cmd, true
	case key.Matches(msg, k.TimeOrigin):
		m, cmd := m.setTimeBase("event")
		return m, cmd, true
	}
	return m, nil, false
}

// walk shows the selected event's call (or process, or credential)
// through time: the timeline filtered to the events sharing it. field ""
// takes the first link the event has.
func (m Model) walk(field string) (Model, tea.Cmd) {
	ev, ok := m.selectedEvent()
	if !ok {
		m.status = "no event selected to walk from"
		return m, nil
	}
	fields := walkFields
	if field != "" {
		fields = []string{field}
	}
	for _, f := range fields {
		var v string
		switch f {
		case "call_id":
			v = ev.CallID
		case "exec_id":
			v = ev.ExecID
		case "credential":
			if len(ev.Credential) > 0 {
				v = ev.Credential[0]
			}
		default:
			m.status = "walk: " + f + " is not one of " + strings.Join(walkFields, ", ")
			return m, nil
		}
		if v == "" {
			continue
		}
		m.focus = paneTimeline
		label := "walk " + f + " " + v
		return m, tea.Batch(common.Send(common.FilterMsg{Set: evidence.Term(f, v), Replace: true, Label: label}),
			common.Send(common.StatusMsg{Text: label + " through time: j/k step along it, esc goes back"}))
	}
	m.status = "this event has no " + strings.Join(fields, ", ") + " to walk"
	return m, nil
}

// setTimeBase sets what times count from: abs (absolute UTC), start (the
// first event), containment (as the playbook recorded it) or event (the
// event under the cursor, a mark). The header says which.
func (m Model) setTimeBase(base string) (Model, tea.Cmd) {
	c := m.clock
	switch base {
	case "abs", "absolute":
		c.Relative, c.Anchor, c.Base = false, time.Time{}, ""
	case "start", "":
		c.Relative, c.Anchor, c.Base = true, time.Time{}, ""
	case "containment":
		at, ok := m.steps.State().Times[playbook.VarContainedAt]
		if !ok {
			m.status = "no containment time yet: mark the step that sets contained_at done (contain.stop)"
			return m, nil
		}
		c.Relative, c.Anchor, c.Base = true, at, "containment"
	case "event", "mark":
		ev, ok := m.selectedEvent()
		if !ok {
			m.status = "no event selected to count time from"
			return m, nil
		}
		c.Relative, c.Anchor, c.Base = true, ev.Time, "event"
		if m.timeline.Marked(ev.ID) {
			c.Base = "mark"
		}
	default:
		m.status = "time: want abs, start, containment or event"
		return m, nil
	}
	m.applyClock(c)
	if s := c.Says(); s != "" {
		m.status = s + " (t cycles, :time abs returns to UTC)"
	}
	return m, nil
}

// cycleTime is t: absolute → from the first event → from containment
// (once recorded) → absolute.
func (m Model) cycleTime() (Model, tea.Cmd) {
	switch {
	case !m.clock.Relative:
		return m.setTimeBase("start")
	case m.clock.Anchor.IsZero():
		if _, ok := m.steps.State().Times[playbook.VarContainedAt]; ok {
			return m.setTimeBase("containment")
		}
	}
	return m.setTimeBase("abs")
}

// applyClock hands the clock to every pane that shows times.
func (m *Model) applyClock(c common.Clock) {
	m.clock = c
	m.timeline.SetRelative(c.Relative)
	m.timeline.SetAnchor(c.Anchor, c.Base)
	m.detail.SetClock(c)
	m.agents.SetClock(c)
	m.findings.SetClock(c)
	m.indicators.SetClock(c)
	m.evaluation.SetClock(c)
}

// showMarks lists the marks, the cursor on the first at or after the
// timeline's place; enter jumps to one.
func (m *Model) showMarks() {
	if m.marks == nil {
		m.status = fmt.Sprintf("marks are off: %v", orUnknown(m.marksErr))
		return
	}
	list := m.marks.List()
	rows := make([]sheet.Row, len(list))
	sel := 0
	at, _ := m.timeline.Selected()
	for i, k := range list {
		ev := evidence.Event{ID: k.ID, Time: k.Time}
		rows[i] = sheet.Row{Text: m.clock.Format(k.Time) + "  " + k.Summary, Event: &ev}
		if k.Time.Before(at.Time) {
			sel = i + 1
		}
	}
	m.sheet.Show(fmt.Sprintf("MARKS (%d)  enter jumps, ' and \" step through them in the timeline, esc closes", len(list)), rows, sel)
}

// showFiles lists the inputs of the background ingest, those not ingested
// first with the reason. The counts come first and the paths are named
// from the folder they share (the title names it): at 80 columns the
// counts must not be the part that is cut.
func (m *Model) showFiles() { m.listFiles(false) }

// listFiles is showFiles; with again, the files sheet already open is
// listed anew where the responder is in it.
func (m *Model) listFiles(again bool) {
	res := m.progress.Results
	paths := make([]string, len(res))
	for i, r := range res {
		paths[i] = r.Path
	}
	dir := sharedDir(paths)
	name := func(p string) string {
		if dir != "" {
			p = strings.TrimPrefix(p, dir+string(filepath.Separator))
		}
		return evidence.Printable(p)
	}
	var bad, good []sheet.Row
	partial := 0
	for _, r := range res {
		if r.Err != nil && !r.Partial() {
			bad = append(bad, sheet.Row{Text: "NOT INGESTED  " + name(r.Path) + ": " + evidence.PrintableMessage(r.Err.Error())})
			continue
		}
		line := fmt.Sprintf("ok  %6s events, %6s new, %d rejected  %s (%s)", common.Count(int64(r.Events)), common.Count(int64(r.New)), r.Rejects, name(r.Path), r.Format)
		if r.ResumedAt > 0 {
			line += fmt.Sprintf(" (resumed at byte %s: what came before was read by an earlier ingest)", common.Count(r.ResumedAt))
		}
		if r.Rejects > 0 {
			line += " (cordon rejects lists them)"
		}
		if r.Partial() {
			// what it gave is in; the rest of it is not
			line = "READ IN PART " + strings.TrimPrefix(line, "ok  ") + ": " + evidence.PrintableMessage(r.Err.Error())
			bad = append(bad, sheet.Row{Text: line})
			partial++
			continue
		}
		good = append(good, sheet.Row{Text: line})
	}
	title := fmt.Sprintf("FILES  %d not ingested, %d read", len(bad)-partial, len(good))
	if partial > 0 {
		title = fmt.Sprintf("FILES  %d not ingested, %d read in part, %d read", len(bad)-partial, partial, len(good))
	}
	if dir != "" {
		title += " in " + evidence.Printable(dir)
	}
	title += " · esc closes"
	if m.cs.Ingest() == nil {
		title = "FILES  no ingest runs with this console (cordon ingest reports its files) · esc closes"
	}
	if again {
		m.sheet.Refresh(title, append(bad, good...))
	} else {
		m.sheet.Show(title, append(bad, good...), 0)
	}
	m.filesTitle = title
}

// sharedDir is the folder every path is under, "" when they share none
// (or there is one path: its own folder says little).
func sharedDir(paths []string) string {
	if len(paths) < 2 {
		return ""
	}
	dir := filepath.Dir(paths[0])
	for _, p := range paths[1:] {
		for dir != "/" && dir != "." && !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			dir = filepath.Dir(dir)
		}
	}
	if dir == "/" || dir == "." {
		return ""
	}
	return dir
}

// unreadCount says how many of n inputs were not ingested and how many,
// partial, read in part.
func unreadCount(n, partial int) string {
	switch {
	case partial == n:
		return fmt.Sprintf("%d read in part", partial)
	case partial > 0:
		return fmt.Sprintf("%d not ingested, %d in part", n-partial, partial)
	}
	return fmt.Sprintf("%d not ingested", n)
}

// unread is an input the ingest could not read, or read only in part
// (ingest.FileResult.Partial), with the reason.
type unread struct {
	line    string // its name and the reason
	partial bool
}

// String is the line, saying when the input was read in part.
func (u unread) String() string {
	if u.partial {
		return "read in part: " + u.line
	}
	return u.line
}

// notIngested are the inputs the ingest could not read or read only in
// part; partial counts the second.
func notIngested(u []ingest.FileResult) (out []unread, partial int) {
	for _, r := range u {
		if r.Err == nil {
			continue
		}
		out = append(out, unread{evidence.Printable(r.Path) + ": " + evidence.PrintableMessage(r.Err.Error()), r.Partial()})
		if r.Partial() {
			partial++
		}
	}
	return out, partial
}
