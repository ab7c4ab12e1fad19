package assistpane

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// taskHelp says what each task asks for, as the picker lists it.
func taskHelp(t assist.Task) string {
	switch t {
	case assist.TaskSummarize:
		return "who acted, what was denied and what got through, what the findings mean"
	case assist.TaskTimeline:
		return "the notable moments in time order, each with its playbook phase"
	case assist.TaskCluster:
		return "groups of related activity, with the events of each"
	case assist.TaskExplain:
		return "a step-by-step reading of the selection, and how to detect or block it"
	case assist.TaskHypotheses:
		return "what the agent may still hold after its process died, and the check for each"
	case assist.TaskAsk:
		return "a question of your own, answered only from the evidence"
	case assist.TaskQuery:
		return "a question in plain words made a search query, shown with its hits before it runs"
	}
	return ""
}

// line is one row of the pane; item is the answer row it belongs to (-1:
// none), for the cursor.
type line struct {
	text string // safe and styled
	item int
}

// View renders the pane: what it works on, through which endpoint, and
// the tasks, the confirmation, the stream or the answer.
func (m Model) View() string {
	st := m.com.Styles
	w, h := m.com.Width, m.com.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	head := []string{
		st.Section.Render(common.Fit(" on: "+m.sel.Label, w)),
		m.endpointLine(),
	}
	var body []line
	switch m.state {
	case statePick:
		body = m.pickLines()
	case statePreparing:
		body = m.textLines(st.Dim.Render, fmt.Sprintf("%s: reading the evidence to send…", m.Task()))
	case stateConfirm:
		body = m.confirmLines()
	case stateRunning:
		body = m.runningLines(h - len(head))
	case stateAnswer:
		head = append(head, m.answerHeader()...)
		body = m.answerLines()
	case stateFailed:
		body = m.failedLines(h - len(head))
	}
	out := head
	rest := h - len(out)
	out = append(out, m.window(body, rest)...)
	for i := range out {
		out[i] = common.PadRight(out[i], w)
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out[:h], "\n")
}

// endpointLine says where a request would go, or why nowhere.
func (m Model) endpointLine() string {
	st, w := m.com.Styles, m.com.Width
	switch {
	case m.cfgErr != nil:
		return st.Warn.Render(common.FitMessage(" ! "+m.cfgErr.Error()+" — offline answers only", w))
	case m.ws == nil:
		return st.Warn.Render(common.Fit(" ! the assistant needs an incident workspace (cordon open DIR)", w))
	case m.offline():
		return st.Dim.Render(common.Fit(" offline (no endpoint configured): answers by rules; nothing leaves the machine", w))
	}
	return st.Dim.Render(common.Fit(fmt.Sprintf(" model %s at %s · its claims are checked against the ids sent", m.cfg.Model, m.cfg.Host()), w))
}

func (m Model) pickLines() []line {
	st, w := m.com.Styles, m.com.Width
	out := []line{{item: -1}, {text: st.ColHeader.Render("  TASK"), item: -1}}
	nw := 12
	for i, t := range assist.Tasks() {
		desc := taskHelp(t)
		if ok, _ := m.available(t); !ok {
			desc = "needs a model · " + desc
		}
		row := common.Pad(string(t), nw) + " " + common.Fit(desc, max(w-nw-5, 8))
		if i == m.task {
			out = append(out, line{text: st.RowSelected.Render(common.PadRight("▸ "+row, w)), item: -1})
			continue
		}
		style := st.Row
		if ok, _ := m.available(t); !ok {
			style = st.Dim
		}
		out = append(out, line{text: "  " + style.Render(row), item: -1})
	}
	out = append(out, line{item: -1})
	hint := "enter runs the task on this selection · a on another pane (a finding, an event, a search) changes it"
	if !m.offline() {
		hint = "enter says what it would send and asks first · a on another pane (a finding, an event, a search) changes the selection"
	}
	out = append(out, m.textLines(st.Dim.Render, hint)...)
	return out
}

func (m Model) confirmLines() []line {
	st := m.com.Styles
	p := m.packet
	q := fmt.Sprintf("%s: send %d events (%s, %d secrets redacted) to %s at %s?",
		m.Task(), p.Sent, p.Figures(), p.Redactions, m.cfg.Model, m.cfg.Host())
	out := []line{{item: -1}}
	out = append(out, m.textLines(st.Prompt.Render, q)...)
	out = append(out, m.textLines(st.Row.Render, "y sends it · n or esc does not")...)
	out = append(out, line{item: -1})
	if m.Task().NeedsQuestion() {
		out = append(out, m.textLines(st.Row.Render, "question: "+m.question)...)
	}
	of := "the selection's"
	if p.Whole {
		of = "the whole incident's"
	}
	sent := fmt.Sprintf("%d of %s %d events would go", p.Sent, of, p.Total)
	if left := p.LeftOut(); left != "" {
		sent += " (" + left + ")"
	}
	out = append(out, m.textLines(st.Dim.Render, sent)...)
	if n := len(p.Missing); n > 0 {
		out = append(out, m.textLines(st.Dim.Render, fmt.Sprintf("%d selected ids are not in the store", n))...)
	}
	if n := len(p.Injections); n > 0 {
		out = append(out, m.textLines(st.Warn.Render, "! "+readLike(n)+" instructions to an AI — they are sent marked as data")...)
	}
	return out
}

func (m Model) runningLines(room int) []line {
	st := m.com.Styles
	what := fmt.Sprintf("%s: asking %s at %s · sent %d of %d events · esc cancels", m.Task(), m.cfg.Model, m.cfg.Host(), m.packet.Sent, m.packet.Total)
	if m.offline() {
		what = fmt.Sprintf("%s: offline rules over the selection", m.Task())
	}
	if m.cancelling {
		what = string(m.Task()) + ": cancelling…"
	}
	out := []line{{item: -1}}
	out = append(out, m.textLines(st.Prompt.Render, what)...)
	out = append(out, line{item: -1})
	stream := m.streamLines(st.Row.Render)
	if claims, pending, ok := assist.StreamedClaims(m.streamed); ok && len(claims) > 0 {
		// An answer object: its claims as each one completes, then the
		// words of the one on its way.
		stream = nil
		for i, c := range claims {
			text := fmt.Sprintf("%d. %s  {%s}", i+1, c.Text, strings.Join(c.EventIDs, " "))
			stream = append(stream, m.textLines(st.Row.Render, text)...)
		}
		stream = append(stream, m.textLines(st.Dim.Render, fmt.Sprintf("%s so far, checked when the answer is complete", plural(len(claims), "claim")))...)
		if pending != "" {
			stream = append(stream, m.textLines(st.Dim.Render, pending)...)
		}
	}
	if len(stream) == 0 {
		stream = m.textLines(st.Dim.Render, "waiting for the first words…")
	}
	// the newest words stay in sight
	if n := room - len(out); n > 0 && len(stream) > n {
		stream = stream[len(stream)-n:]
	}
	return append(out, stream...)
}

func (m Model) failedLines(room int) []line {
	st := m.com.Styles
	out := []line{{item: -1}}
	if m.err != nil {
		out = append(out, m.messageLines(st.StatusError.Render, m.err.Error())...)
	}
	out = append(out, m.textLines(st.Dim.Render, "esc: back to the tasks")...)
	if s := m.streamLines(st.Dim.Render); len(s) > 0 {
		out = append(out, line{item: -1})
		out = append(out, m.textLines(st.Label.Render, "received before it stopped (not verified):")...)
		if n := room - len(out); n > 0 && len(s) > n {
			s = s[len(s)-n:]
		}
		out = append(out, s...)
	}
	return out
}

// answerHeader is what was sent to whom, and how many claims hold.
func (m Model) answerHeader() []string {
	st, w := m.com.Styles, m.com.Width
	r := m.res
	src := fmt.Sprintf(" %s · sent %d of %d events · %s · %s at %s", r.Task, r.Sent, r.Total, plural(r.Redactions, "redaction"), r.Model, r.Endpoint)
	if r.Offline {
		src = fmt.Sprintf(" %s · offline answer (no endpoint configured) · %d of %d events", r.Task, r.Sent, r.Total)
	}
	a := r.Answer
	sum := " " + plural(len(a.Claims), "claim")
	if n := a.Uncited(); n > 0 {
		sum += fmt.Sprintf(" · %d UNVERIFIED", n)
	} else if len(a.Claims) > 0 {
		sum += " · all cite real events"
	}
	if n := a.Unsupported(); n > 0 {
		sum += fmt.Sprintf(" · %d NOT SUPPORTED by their events", n)
	}
	if !a.Structured && len(a.Claims) > 0 {
		sum += " · the reply was not in the answer format"
	}
	if a.Truncated {
		sum += " · TRUNCATED: the reply was cut off, its complete claims are kept"
	}
	if m.res.Suggestion != nil {
		sum = " a query, not run yet"
	}
	sum += " · enter shows a claim's events in the timeline"
	return []string{st.Label.Render(common.Fit(src, w)), st.Dim.Render(common.Fit(sum, w)), ""}
}

func (m Model) answerLines() []line {
	st, w := m.com.Styles, m.com.Width
	a := m.res.Answer
	var out []line
	if sg := m.res.Suggestion; sg != nil {
		out = append(out, m.suggestionLines(*sg)...)
	}
	if len(a.Claims) == 0 {
		out = append(out, m.textLines(st.Dim.Render, "the answer holds no claim")...)
	}
	for i, c := range a.Claims {
		// claims come first among the items: claim i is item i
		sel := i == m.cur
		text := fmt.Sprintf("%d. ", i+1)
		if c.Phase != "" {
			text += "[" + c.Phase + "] "
		}
		text += c.Text
		for j, l := range wrap(text, w-5) {
			switch {
			case sel && j == 0:
				out = append(out, line{text: st.RowSelected.Render(common.PadRight("▸ "+common.Cut(l, w-2), w)), item: i})
			case j == 0:
				out = append(out, line{text: "  " + st.Row.Render(common.Cut(l, w-2)), item: i})
			default:
				out = append(out, line{text: "     " + st.Row.Render(common.Cut(l, w-5)), item: i})
			}
		}
		verdict, style := c.Verdict(), st.Allow
		switch {
		case !c.CitesReal:
			style = st.Deny
		case !c.Supported():
			style = st.Warn
		}
		verdict = common.Fit(verdict, w-5)
		ids := ""
		if len(c.EventIDs) > 0 {
			ids = " · cites " + strings.Join(c.EventIDs, " ")
		}
		out = append(out, line{text: "     " + style.Render(verdict) + st.Dim.Render(common.Fit(ids, w-5-ansi.StringWidth(verdict))), item: i})
	}
	if a.Notes != "" {
		out = append(out, line{item: -1})
		out = append(out, m.textLines(st.Dim.Render, "notes: "+a.Notes)...)
	}
	if n := len(m.res.Injections); n > 0 {
		out = append(out, line{item: -1})
		out = append(out, m.textLines(st.Warn.Render, "! "+readLike(n)+" instructions to an AI — treated as data (enter opens one)")...)
		for i, f := range m.res.Injections {
			it := len(a.Claims) + i
			row := common.Pad(f.EventID, 16) + "  " + common.Fit(f.Excerpt, max(w-22, 8))
			if it == m.cur {
				out = append(out, line{text: st.RowSelected.Render(common.PadRight("▸   "+row, w)), item: it})
				continue
			}
			out = append(out, line{text: "    " + st.Warn.Render(row), item: it})
		}
	}
	return out
}

// window shows as many lines as fit in room, keeping the selected item's
// lines in sight.
func (m Model) window(body []line, room int) []string {
	if room <= 0 {
		return nil
	}
	top := 0
	if m.state == stateAnswer && len(body) > room {
		first, last := -1, -1
		for i, l := range body {
			if l.item == m.cur {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		if first >= 0 {
			top = max(0, last-room+1)
			top = min(top, first)
			if m.cur == 0 {
				top = 0
			}
		}
	}
	end := min(top+room, len(body))
	out := make([]string, 0, room)
	for _, l := range body[top:end] {
		out = append(out, l.text)
	}
	return out
}

// textLines wraps text from anywhere (the model, the evidence, an error)
// made safe, and styles each line.
func (m Model) textLines(render func(...string) string, text string) []line {
	var out []line
	for _, l := range wrap(text, m.com.Width-4) {
		out = append(out, line{text: "  " + render(common.Cut(l, m.com.Width-2)), item: -1})
	}
	return out
}

// messageLines is textLines for cordon's own message (an error), made
// safe by evidence.PrintableMessage so that the %q quoting in it stays
// single.
func (m Model) messageLines(render func(...string) string, text string) []line {
	var out []line
	for _, l := range wrapWith(evidence.PrintableMessage, text, m.com.Width-4) {
		out = append(out, line{text: "  " + render(common.Cut(l, m.com.Width-2)), item: -1})
	}
	return out
}

// suggestionLines show the query task's query and its hit count: a
// preview, which runs only on y.
func (m Model) suggestionLines(sg assist.Suggestion) []line {
	st := m.com.Styles
	if !sg.Runnable() {
		out := m.textLines(st.StatusError.Render, "no query to run: "+sg.Err)
		if sg.Query != "" {
			out = append(out, m.textLines(st.Dim.Render, "the model wrote: "+sg.Query)...)
		}
		return append(out, line{item: -1})
	}
	out := m.textLines(st.Prompt.Render, "query: "+sg.Query)
	out = append(out, m.textLines(st.Row.Render, fmt.Sprintf("%s · y runs it in the timeline · esc leaves it", plural(sg.Hits, "hit")))...)
	return append(out, line{item: -1})
}

// streamLines is the streamed text as it came, line by line, made safe.
func (m Model) streamLines(render func(...string) string) []line {
	s := m.streamed
	if s == "" {
		return nil
	}
	var out []line
	for _, para := range strings.Split(s, "\n") {
		for _, l := range wrap(para, m.com.Width-4) {
			out = append(out, line{text: "  " + render(common.Cut(l, m.com.Width-2)), item: -1})
		}
	}
	return out
}

// wrap makes s printable and wraps it to w cells at spaces only (an id, a
// host or a flag is not cut at its hyphens), cutting a longer word.
func wrap(s string, w int) []string { return wrapWith(evidence.Printable, s, w) }

// wrapWith is wrap with safe as the escaping.
func wrapWith(safe func(string) string, s string, w int) []string {
	w = max(w, 8)
	var out []string
	cur, cw := "", 0
	for _, word := range strings.Fields(safe(s)) {
		ww := ansi.StringWidth(word)
		switch {
		case cw > 0 && cw+1+ww <= w:
			cur, cw = cur+" "+word, cw+1+ww
			continue
		case cw > 0:
			out = append(out, cur)
		}
		parts := strings.Split(ansi.Hardwrap(word, w, true), "\n")
		out = append(out, parts[:len(parts)-1]...)
		cur = parts[len(parts)-1]
		cw = ansi.StringWidth(cur)
	}
	if cur != "" || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}

// plural is "1 claim", "2 claims".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// readLike is "1 evidence line reads like", "3 evidence lines read like".
func readLike(n int) string {
	if n == 1 {
		return "1 evidence line reads like"
	}
	return fmt.Sprintf("%d evidence lines read like", n)
}
