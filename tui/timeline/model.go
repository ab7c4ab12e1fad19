package timeline

import (
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/common"
)

// Model is the timeline pane. The timeline is always a query (filter and
// search) and a time order; rows holds a window of it around the cursor.
type Model struct {
	com   common.Common
	store evidence.Reader

	filter      evidence.Query // set by panes: an agent, facet values, a finding's events
	search      string         // as typed (or a related group's query, as text)
	searchQ     evidence.Query // search, read
	lastSearch  string
	lastSearchQ evidence.Query
	query       evidence.Query // filter AND search
	hl          []string       // the search's words, highlighted in the rows
	labels      labels
	gen         int // bumps on every new window; older replies are dropped
	qgen        int // bumps on every new query and move asked for: a jump's reply outlives a reload, not a move

	rows                        []evidence.Event
	cur, top                    int
	moreBefore, moreAfter       bool
	loading                     bool
	loadingBefore, loadingAfter bool
	hits                        uint64
	hitsKnown                   bool

	counts   evidence.Counts
	agentW   int           // the longest agent name in counts
	span     evidence.Span // the main span, and the events outside it
	clock    common.Clock
	marks    map[string]bool
	markList []incident.Mark

	spark    sparkline
	sparkSeq int
}

// New returns a timeline over store; Init loads the first page.
func New(com common.Common, store evidence.Reader) Model {
	return Model{com: com, store: store, marks: map[string]bool{}, loading: true}
}

// Init loads the start of the incident.
func (m Model) Init() tea.Cmd {
	return tea.Batch(anchorCmd(&m, atStart, evidence.Cursor{}, -1, "", nil), hitsCmd(&m))
}

// SetSize sets the pane's size; a new width rebuckets the sparkline.
func (m *Model) SetSize(w, h int) tea.Cmd {
	resized := w != m.com.Width
	m.com = m.com.SetSize(w, h)
	m.clampTop()
	if resized {
		return m.resetSpark()
	}
	return nil
}

// visible is how many rows fit under the sparkline and column header.
func (m *Model) visible() int { return max(m.com.Height-m.chrome(), 1) }

// chrome is the number of lines above the rows: the sparkline, the line
// naming the events outside the main span when there are any, and the
// column header.
func (m *Model) chrome() int {
	switch {
	case m.com.Height < 8:
		return 1
	case m.span.Outside() > 0 && m.com.Height >= 10:
		return 3
	}
	return 2
}

func (m *Model) pageSize() int { return max(100, 3*m.visible()) }

func (m *Model) maxRows() int { return 5 * m.pageSize() }

// Query is the query the timeline shows (filter and search combined).
func (m Model) Query() evidence.Query { return m.query }

// Filter and Search are the two parts of the query.
func (m Model) Filter() evidence.Query { return m.filter }

// Search is the active search as typed, empty when none.
func (m Model) Search() string { return m.search }

// LastSearch is the last search run, kept after esc cleared it (n/N
// still find it, and / offers it again).
func (m Model) LastSearch() string { return m.lastSearch }

// HitTerms are the words of the search the rows highlight.
func (m Model) HitTerms() []string { return m.hl }

// SearchQuery is the active search as read.
func (m Model) SearchQuery() evidence.Query { return m.searchQ }

// Hits is the number of events matching the query, once known.
func (m Model) Hits() (uint64, bool) { return m.hits, m.hitsKnown }

// Loading reports a window or page in flight.
func (m Model) Loading() bool { return m.loading }

// Selected returns the event under the cursor.
func (m Model) Selected() (evidence.Event, bool) {
	if m.cur < 0 || m.cur >= len(m.rows) {
		return evidence.Event{}, false
	}
	return m.rows[m.cur], true
}

// Rows is the window of events held (for tests).
func (m Model) Rows() []evidence.Event { return m.rows }

// SetRelative switches between absolute and relative times.
func (m *Model) SetRelative(rel bool) { m.clock.Relative = rel }

// SetAnchor sets what relative times count from (zero: the first event),
// named base in the header.
func (m *Model) SetAnchor(at time.Time, base string) { m.clock.Anchor, m.clock.Base = at, base }

// SetCounts takes new whole-incident counts and the main span found from
// them: the sparkline and the clock's origin follow the main span. After
// an ingest batch (refresh) it also reloads the window, since new events
// may land anywhere in time; while the ingest is live the sparkline's
// denied marks are refreshed only now and then.
func (m *Model) SetCounts(c evidence.Counts, sp evidence.Span, refresh, live bool) tea.Cmd {
	chrome := m.chrome()
	m.counts, m.span = c, sp
	m.agentW = 0
	for a := range c.Fields["agent"] {
		m.agentW = max(m.agentW, ansi.StringWidth(a))
	}
	if m.chrome() != chrome { // the outside line came or went
		m.clampTop()
	}
	m.clock = m.clock.ForSpan(sp)
	if !live {
		m.spark.denied = nil
	}
	cmds := []tea.Cmd{m.resetSpark()}
	if refresh {
		cmds = append(cmds, m.Refresh())
	}
	return tea.Batch(cmds...)
}

// Marked reports whether the event id is marked.
func (m Model) Marked(id string) bool { return m.marks[id] }

// SetMarks takes the marks after a change.
func (m *Model) SetMarks(list []incident.Mark) {
	m.markList = list
	m.marks = make(map[string]bool, len(list))
	for _, k := range list {
		m.marks[k.ID] = true
	}
}

// SetSearch runs a search: its results replace the timeline. A search
// that does not read (an unknown field, an operator with nothing after it)
// leaves the timeline as it is and says why in the status line.
func (m *Model) SetSearch(text string) tea.Cmd {
	q, err := evidence.Parse(text)
	if err != nil {
		return common.Send(common.ErrMsg{Err: err})
	}
	if text != "" {
		m.lastSearch, m.lastSearchQ = text, q
	}
	cmd := m.setQuery(m.filter, text, q, true)
	if hint := Reading(text, q, m.store.Counts()); hint != "" {
		cmd = tea.Batch(cmd, common.Send(common.StatusMsg{Text: hint}))
	}
	return cmd
}

// ShowRelated shows a related group of the event pane: its query as the
// search, named by label in the header, with the filter set aside (the
// group is about the event, not about what the timeline was narrowed to)
// and the cursor at the event's moment. Place taken before and Restore
// bring the timeline back.
func (m *Model) ShowRelated(q evidence.Query, label string, at evidence.Event) tea.Cmd {
	text := q.String()
	m.lastSearch, m.lastSearchQ = text, q
	next := labels{search: labelled{query: text, label: label}}
	return m.switchQuery(evidence.All(), text, q, next, atCursor, cursorOf(at), "")
}

// Place is what the timeline shows: its query, labels and the event under
// the cursor.
type Place struct {
	filter  evidence.Query
	search  string
	searchQ evidence.Query
	labels  labels
	at      evidence.Event
	ok      bool
}

// Place returns what the timeline shows now, for Restore.
func (m Model) Place() Place {
	ev, ok := m.Selected()
	return Place{filter: m.filter, search: m.search, searchQ: m.searchQ, labels: m.labels, at: ev, ok: ok}
}

// Restore shows a Place again, the cursor on the event it was on.
func (m *Model) Restore(p Place) tea.Cmd {
	if !p.ok {
		return m.switchQuery(p.filter, p.search, p.searchQ, p.labels, atStart, evidence.Cursor{}, "")
	}
	return m.switchQuery(p.filter, p.search, p.searchQ, p.labels, atCursor, cursorOf(p.at), "")
}

// SetFilter replaces the filter (an agent, facet values); label, when not
// empty, is what the header shows for it instead of the query (a finding's
// evidence: "finding boundary-probing · agent-7 · 35 events").
func (m *Model) SetFilter(f evidence.Query, label string) tea.Cmd {
	next := m.labels
	next.filter = labelled{query: filterText(f), label: label}
	w, at := atStart, evidence.Cursor{}
	if ev, ok := m.Selected(); ok && m.search == "" {
		w, at = atCursor, cursorOf(ev)
	}
	return m.switchQuery(f, m.search, m.searchQ, next, w, at, "")
}

// FilterText is the filter as the header shows it: its label, with any
// clause added since, or the query itself.
func (m Model) FilterText() string { return m.labels.filter.text(filterText(m.filter)) }

// filterText is a filter as text: "" for none.
func filterText(f evidence.Query) string {
	if f.IsAll() {
		return ""
	}
	return f.String()
}

// QueryText is the whole query as the header shows it.
func (m Model) QueryText() string {
	return strings.TrimSpace(m.FilterText() + " " + m.SearchText())
}

// SearchText is the search as the header shows it.
func (m Model) SearchText() string { return m.labels.search.text(m.search) }

// AddFilter narrows the filter by a clause (a facet value), unless it is
// there already.
func (m *Model) AddFilter(clause evidence.Query) tea.Cmd {
	f := m.filter
	if !hasClause(f, clause) {
		f = evidence.And(f, clause)
	}
	return m.setQuery(f, m.search, m.searchQ, true)
}

// hasClause reports whether filter is clause or ANDs it.
func hasClause(filter, clause evidence.Query) bool {
	if filter.Equal(clause) {
		return true
	}
	if filter.Op() == evidence.OpAnd {
		for _, s := range filter.Subs() {
			if s.Equal(clause) {
				return true
			}
		}
	}
	return false
}

// Refresh reloads the window around the cursor, keeping it on its screen
// row: after an ingest batch landed.
func (m *Model) Refresh() tea.Cmd {
	if m.loading {
		return nil
	}
	m.gen++
	m.loading, m.loadingBefore, m.loadingAfter = true, false, false
	ev, ok := m.Selected()
	switch {
	case !ok || m.cur == 0 && !m.moreBefore:
		// at the head of the timeline (or nothing yet): stay at the head,
		// where an earlier file's events land
		return tea.Batch(anchorCmd(m, atStart, evidence.Cursor{}, -1, "", nil), hitsCmd(m))
	case m.cur == len(m.rows)-1 && !m.moreAfter:
		// on the last event: follow the tail, like tail -f
		return tea.Batch(anchorCmd(m, atEnd, evidence.Cursor{}, -1, "", nil), hitsCmd(m))
	}
	return tea.Batch(anchorCmd(m, atCursor, cursorOf(ev), m.cur-m.top, "", nil), hitsCmd(m))
}

// JumpTo shows the window around an event and selects it.
func (m *Model) JumpTo(ev evidence.Event) tea.Cmd {
	m.gen++
	m.qgen++
	m.loading, m.loadingBefore, m.loadingAfter = true, false, false
	return anchorCmd(m, atCursor, cursorOf(ev), -1, ev.ID, nil)
}

// setQuery switches to a new query, anchored at the event under the cursor
// so that narrowing or widening keeps the responder's place in time.
func (m *Model) setQuery(filter evidence.Query, search string, searchQ evidence.Query, keepPlace bool) tea.Cmd {
	w, at := atStart, evidence.Cursor{}
	if ev, ok := m.Selected(); ok && keepPlace && search == "" {
		w, at = atCursor, cursorOf(ev)
	}
	return m.switchQuery(filter, search, searchQ, m.labels, w, at, "")
}

// switchQuery shows a new query from w (at: the event to put the cursor
// on, want: its id, "" when any nearby will do), labelled by next as far as
// its labels still apply.
func (m *Model) switchQuery(filter evidence.Query, search string, searchQ evidence.Query, next labels, w where, at evidence.Cursor, want string) tea.Cmd {
	prev := prevQuery{filter: m.filter, search: m.search, searchQ: m.searchQ, labels: m.labels}
	m.filter, m.search, m.searchQ = filter, search, searchQ
	m.labels = next.keep(filterText(filter), search)
	m.query = evidence.And(filter, searchQ)
	m.hl = common.HitTerms(searchQ)
	m.gen++
	m.qgen++
	m.loading, m.loadingBefore, m.loadingAfter = true, false, false
	m.hitsKnown = false
	return tea.Batch(anchorCmd(m, w, at, -1, want, &prev), hitsCmd(m))
}

// Reading is the status line's note on a search that reads, "" when it
// reads as typed with nothing to point out: how it was read, and hints
// (evidence.Hints) about what it may not find.
func Reading(text string, q evidence.Query, c evidence.Counts) string {
	var parts []string
	if r := evidence.ReadAs(text, q); r != "" {
		parts = append(parts, "read as "+r)
	}
	parts = append(parts, evidence.Hints(text, q, c)...)
	return strings.Join(parts, " · ")
}
