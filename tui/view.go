package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/evidence"
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
	case m.sheet.IsOpen():
		return m.sheet.View()
	}
	return m.focused().View()
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
	// the left part is laid out for the longest pane name, whichever pane
	// is shown: the title does not change its parts from pane to pane
	widest := len([]rune(right))
	for _, def := range panes() {
		widest = max(widest, len([]rune(def.name))+2)
	}
	room := max(w-widest-len("cordon"), 0)
	count := common.Count(m.counts.Total) + " events"
	// the main span: a record dated 9999-12-31 is named by the timeline,
	// not allowed to stretch the header to ten thousand years
	short := common.SpanShort(m.span.First, m.span.Last)
	// the name yields to the count and the span, down to 12 cells
	nameW := max(12, room-1-len([]rune(count))-3-len([]rune(short))-3)
	left := " " + common.Fit(m.cs.Name(), nameW)
	for _, alts := range [][]string{
		{count},
		{common.Span(m.span.First, m.span.Last), short},
	} {
		for _, part := range alts {
			if len([]rune(left))+3+len([]rune(part)) <= room {
				left += " · " + part
				break
			}
		}
	}
	left = common.PadRight(common.Fit(left, room), room+widest-len([]rune(right)))
	return st.Title.Render("cordon") + st.HeaderText.Render(left) + st.HeaderPane.Render(right)
}

// headerFilter: the query the timeline shows and its hit count, and the
// background ingest's progress.
func (m Model) headerFilter() string {
	st := m.com.Styles
	w := m.com.Width
	var right string
	if m.cs.Ingest() != nil && (m.ingesting || m.progress.Done || m.progress.Following) {
		right = " " + ingestLine(m.progress)
	}
	if bad, partial := notIngested(m.progress.Results); len(bad) > 0 {
		// first, so that a narrow header keeps it: evidence that is not
		// in the index must not pass for evidence of nothing
		right = " " + unreadCount(len(bad), partial) + " (:files)" + strings.Replace(right, " ", " · ", 1)
	}
	// the hit count first: it must survive a narrow terminal
	var parts []string
	if n, ok := m.timeline.Hits(); ok {
		hits := " hits"
		if n == 1 {
			hits = " hit"
		}
		parts = append(parts, common.Count(int64(n))+hits)
	} else if m.timeline.Loading() {
		parts = append(parts, "searching…")
	}
	if f := m.timeline.FilterText(); f != "" {
		parts = append(parts, "filter: "+f)
	}
	if s := m.timeline.SearchText(); s != "" {
		parts = append(parts, "search: "+s)
	}
	if r := evidence.ReadAs(m.timeline.Search(), m.timeline.SearchQuery()); r != "" {
		parts = append(parts, "read as: "+r)
	}
	if m.timeline.Query().IsAll() {
		parts = append(parts, "all events")
	}
	if c := m.clock.Says(); c != "" {
		parts = append(parts, c)
	}
	left := " " + strings.Join(parts, " · ")
	right = fitParts(left, right, w)
	rw := min(len([]rune(right)), max(w-len([]rune(left))-1, w/2))
	lw := max(w-rw, 0)
	return st.Filter.Render(common.PadRight(common.Fit(left, lw), lw)) + st.Progress.Render(common.Fit(right, rw))
}

// fitParts drops the last of right's parts (joined by " · ", the most
// telling first) one at a time until left and right fit in w, down to the
// first ("following 5 files", "ingesting 40%"): the query matters more
// than the ingest's details, and what is left of them is the most
// telling. Before, a narrow header kept the first part only, and a busy
// follow's findings were never shown at 80 columns.
func fitParts(left, right string, w int) string {
	for len([]rune(left))+len([]rune(right)) > w {
		i := strings.LastIndex(right, " · ")
		if i < 0 {
			break
		}
		right = right[:i]
	}
	return right
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
	case m.command.IsOpen():
		return m.command.View()
	case m.err != nil:
		return st.StatusError.Render(common.FitMessage("error: "+m.err.Error()+"  (esc dismisses)", w))
	case m.status != "":
		return st.Status.Render(common.Fit(m.status, w))
	}
	m.help.Width = w
	return m.help.ShortHelpView(m.focused().ShortHelp())
}

// helpView is the visible part of the help; j/k, pgup/pgdn and the wheel
// scroll it when the terminal is too short for all of it.
func (m Model) helpView() string {
	st := m.com.Styles
	w, h := m.com.Width, m.helpRows()
	lines := m.helpLines()
	top := min(m.helpTop, max(len(lines)-h, 0))
	end := min(top+h, len(lines))
	shown := append([]string(nil), lines[top:end]...)
	if end < len(lines) && len(shown) > 0 {
		shown[len(shown)-1] = st.Dim.Render(common.Fit(fmt.Sprintf("  … %d more lines: j/↓ scrolls, ? or esc closes", len(lines)-end), w))
	}
	for i := range shown {
		shown[i] = common.PadRight(shown[i], w)
	}
	for len(shown) < h {
		shown = append(shown, "")
	}
	return strings.Join(shown, "\n")
}

// helpRows is the height of the help screen.
func (m Model) helpRows() int { return max(m.com.Height-3-m.drillRows, 1) }

// scrollHelp moves the help by d lines, within its length.
func (m *Model) scrollHelp(d int) {
	m.helpTop = min(max(m.helpTop+d, 0), max(len(m.helpLines())-m.helpRows(), 0))
}

// helpBlocks lays the key map's groups side by side as far as the width
// allows and the rest in blocks below, rather than cutting a group off.
func (m Model) helpBlocks() [][]string {
	groups := m.fullHelp()
	h := m.help
	h.Width = 0 // measured whole: the help model would cut a column with "…"
	var out [][]string
	for len(groups) > 0 {
		n := 1
		for n < len(groups) && lipgloss.Width(h.FullHelpView(groups[:n+1])) <= m.com.Width {
			n++
		}
		var block []string
		for _, l := range strings.Split(h.FullHelpView(groups[:n]), "\n") {
			// our own styled text, not evidence: cut it, do not escape it
			block = append(block, common.PadRight(l, m.com.Width))
		}
		out = append(out, block)
		groups = groups[n:]
	}
	return out
}

// helpLines is the full key help, generated from the key map, with the
// query syntax a responder needs first right after the first keys.
func (m Model) helpLines() []string {
	st := m.com.Styles
	text := func(ls ...string) []string {
		// wrapped, not cut: the help is where a key is looked up
		var out []string
		for _, l := range ls {
			for i, part := range strings.Split(ansi.Wrap(l, max(m.com.Width-4, 10), ""), "\n") {
				indent := "  "
				if i > 0 {
					indent = "    "
				}
				out = append(out, indent+st.HelpDesc.Render(common.Cut(part, m.com.Width-len(indent))))
			}
		}
		return out
	}
	blocks := m.helpBlocks()
	lines := []string{st.Section.Render("KEYS"), ""}
	lines = append(lines, blocks[0]...)
	lines = append(lines, "", st.Section.Render("QUERIES (docs/query.md)"), "")
	lines = append(lines, text(
		"agent:agent-7 decision:deny    exact field values; every clause must match",
		"nohup   curl OR wget           bare words: message, cmdline, URL, path, raw",
		"kind:x (a OR b) -agent:y       OR for either, ( ) group, NOT or - excludes",
		"dst_host:*.example.com         wildcards; /regexp/, /regexp/i for any case",
		"bytes_out:>1000000             numeric ranges on bytes_out / bytes_in",
		"esc clears the search, then the filter; ? or esc closes this help",
	)...)
	lines = append(lines, "", st.Section.Render("JUMPS AND COMMANDS"), "")
	lines = append(lines, text(
		"] [ denials, } { finding evidence, ' \" marks (:marks lists them), w walks the call/process/credential, T times from the event",
		": runs a command (tab completes, ↑ recalls): subject, step, note, check, report, export, goto, since, filter, marks, files, help",
		"facet picker: enter includes a value, x or - excludes it, p picks a pivot of two fields",
	)...)
	lines = append(lines, "", st.Section.Render("PANES"), "")
	lines = append(lines, text(
		tabCycle(),
		"event: enter opens a related event, or a group in the timeline from its header; its notes show under its fields",
		"playbook: enter opens a step, then its line under the cursor (an item: its whole text, who ticked it); space ticks an item; s start, d done, x skip, c/C check, n note",
		"journal: t by type, enter opens its event; i: note on the selected event",
		"a: the assistant on the selection (a search, a finding, an event); it asks before sending evidence",
	)...)
	for _, b := range blocks[1:] {
		lines = append(append(lines, ""), b...)
	}
	if dl := m.drill.HelpLines(); len(dl) > 0 {
		lines = append(append(lines, ""), text(dl...)...)
	}
	return lines
}
