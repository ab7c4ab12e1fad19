package tui

import (
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/tui/common"
)

// View draws the header, the focused pane (or the help or facet picker over
// it) and the status line. It only reads the model: never the store.
func (m Model) View() (out string) {
	defer func() {
		if r := recover(); r != nil {
			out = fmt.Sprintf("cordon: internal error while drawing: %v\r\npress q to quit, esc to go back", r)
		}
	}()
	w, h := m.com.Width, m.com.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < 20 || h < 5 {
		return common.Fit("cordon: terminal too small", w)
	}
	body := m.body()
	lines := []string{m.headerTop(), m.headerFilter(), body, m.statusLine()}
	if bar := m.drill.Bar(w); len(bar) > 0 { // a drill's clock and last inject under the header
		lines = append(append(lines[:2:2], bar...), body, m.statusLine())
	}
	return strings.Join(lines, "\n")
}

func (m Model) body() string {
	switch {
	case m.showHelp:
		return m.helpView()
	case m.facet.IsOpen():
		return m.facet.View()
	}
	switch m.focus {
	case paneAgents:
		return m.agents.View()
	case paneFindings:
		return m.findings.View()
	case paneDetail:
		return m.detail.View()
	case paneSteps:
		return m.steps.View()
	case paneJournal:
		return m.journal.View()
	case paneAssist:
		return m.assist.View()
	case paneQuestions:
		return m.drill.View()
	}
	return m.timeline.View()
}

// headerTop: what incident, how big, when, and where the responder is.
// Parts are dropped from the right when the terminal is narrow.
func (m Model) headerTop() string {
	st := m.com.Styles
	w := m.com.Width
	title := m.focus.String()
	if m.showHelp {
		title = "help"
	}
	right := " " + strings.ToUpper(title) + " "
	room := max(w-len([]rune(right))-len("cordon"), 0)
	count := common.Count(m.counts.Total) + " events"
	short := common.SpanShort(m.counts.First, m.counts.Last)
	// the name yields to the count and the span, down to 12 cells
	nameW := max(12, room-1-len([]rune(count))-3-len([]rune(short))-3)
	left := " " + common.Fit(m.opt.Name, nameW)
	for _, alts := range [][]string{
		{count},
		{common.Span(m.counts.First, m.counts.Last), short},
	} {
		for _, part := range alts {
			if len([]rune(left))+3+len([]rune(part)) <= room {
				left += " · " + part
				break
			}
		}
	}
	left = common.PadRight(common.Fit(left, room), room)
	return st.Title.Render("cordon") + st.HeaderText.Render(left) + st.HeaderPane.Render(right)
}

// headerFilter: the query the timeline shows and its hit count, and the
// background ingest's progress.
func (m Model) headerFilter() string {
	st := m.com.Styles
	w := m.com.Width
	var right string
	if m.opt.Ingest != nil && (m.ingesting || m.progress.Done) {
		right = " " + ingestLine(m.progress)
	}
	// the hit count first: it must survive a narrow terminal
	var parts []string
	if n, ok := m.timeline.Hits(); ok {
		parts = append(parts, common.Count(int64(n))+" hits")
	} else if m.timeline.Loading() {
		parts = append(parts, "searching…")
	}
	if f := m.timeline.Filter(); f != "" {
		parts = append(parts, "filter: "+f)
	}
	if s := m.timeline.Search(); s != "" {
		parts = append(parts, "search: "+s)
	}
	if m.timeline.Anded() {
		parts = append(parts, "(all words required with a filter)")
	}
	if m.timeline.Query() == "" {
		parts = append(parts, "all events")
	}
	left := " " + strings.Join(parts, " · ")
	rw := min(len([]rune(right)), max(w-len([]rune(left))-1, w/2))
	lw := max(w-rw, 0)
	return st.Filter.Render(common.PadRight(common.Fit(left, lw), lw)) + st.Progress.Render(common.Fit(right, rw))
}

// statusLine: the search bar, an error to dismiss, a notice, or short help.
func (m Model) statusLine() string {
	st := m.com.Styles
	w := m.com.Width
	switch {
	case m.search.IsOpen():
		return m.search.View()
	case m.prompt.IsOpen():
		return m.prompt.View()
	case m.err != nil:
		return st.StatusError.Render(common.Fit("error: "+m.err.Error()+"  (esc dismisses)", w))
	case m.status != "":
		return st.Status.Render(common.Fit(m.status, w))
	}
	m.help.Width = w
	if m.focus == paneQuestions {
		return m.help.ShortHelpView(m.drill.ShortHelp())
	}
	name := m.focus.String()
	if m.focus == paneSteps && m.steps.InDetail() {
		name = "playbook-step"
	}
	if m.focus == paneAssist {
		name = m.assist.HelpName()
	}
	return m.help.ShortHelpView(m.com.Keys.ShortHelpFor(name))
}

// helpView is the full key help, generated from the key map, and the query
// syntax a responder needs first.
func (m Model) helpView() string {
	st := m.com.Styles
	w, h := m.com.Width, max(m.com.Height-3-m.drillRows, 1)
	lines := []string{st.Section.Render("KEYS"), ""}
	lines = append(lines, strings.Split(m.help.FullHelpView(m.com.Keys.FullHelp()), "\n")...)
	for _, l := range m.drill.HelpLines() {
		lines = append(lines, "  "+st.HelpDesc.Render(l))
	}
	lines = append(lines, "", st.Section.Render("QUERIES (Bleve query-string syntax)"), "")
	for _, l := range []string{
		"agent:agent-7 +decision:deny   exact field values; + must match, - must not",
		"nohup   curl                   a bare word searches message, command line, URL, path, raw",
		"dst_host:*.example.com         wildcards on exact fields",
		"bytes_out:>1000000             numeric ranges on bytes_out / bytes_in",
		"esc clears the search, then the filter; ? or esc closes this help",
		"tab: timeline → agents → findings → playbook → journal",
		"playbook: enter step, s start, d done, x skip, c/C check, space tick, n note",
		"journal: t by type, enter opens its event; i: note on the selected event",
		"a: the assistant on the selection (a search, a finding, an event); it asks before sending evidence",
	} {
		lines = append(lines, "  "+st.HelpDesc.Render(l))
	}
	for i := range lines {
		lines[i] = common.PadRight(lines[i], w)
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines[:h], "\n")
}
