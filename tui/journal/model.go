package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
)

// DefaultEvery is how often the pane looks for entries other processes
// wrote.
const DefaultEvery = time.Second

// Messages of the poll loop and the verification; seq drops stale ones.
type (
	pollMsg struct {
		seq     int
		entries []journal.Entry
		next    int64
		err     error
	}
	tickMsg   struct{ seq int }
	verifyMsg struct {
		seq int
		v   journal.Verification
		err error
	}
)

// Model is the Journal pane.
type Model struct {
	com   common.Common
	j     *journal.Journal
	every time.Duration // <= 0: no polling, only Poll

	entries []journal.Entry // oldest first
	offset  int64
	seq     int // poll loop generation
	vseq    int
	loaded  bool
	pollErr error
	verify  *journal.Verification
	vErr    error

	typ      journal.EntryType // "" shows every type
	shown    []int             // indices into entries, newest first
	cur, top int
}

// New returns the pane for j (nil: no workspace). every is the polling
// period (0: DefaultEvery; negative: only when Poll is called).
func New(com common.Common, j *journal.Journal, every time.Duration) Model {
	if every == 0 {
		every = DefaultEvery
	}
	return Model{com: com, j: j, every: every}
}

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.clamp()
}

// Entries are the entries read so far, oldest first (for tests).
func (m Model) Entries() []journal.Entry { return m.entries }

// Shown are the entries the filter lets through, newest first (for tests).
func (m Model) Shown() []journal.Entry {
	out := make([]journal.Entry, len(m.shown))
	for i, j := range m.shown {
		out[i] = m.entries[j]
	}
	return out
}

// Type is the type filter ("" for all).
func (m Model) Type() journal.EntryType { return m.typ }

// Init starts the polling loop (through a tick, so that the loop's
// generation is the one Update holds, not a copy's).
func (m Model) Init() tea.Cmd {
	if m.j == nil {
		return nil
	}
	seq := m.seq
	return func() tea.Msg { return tickMsg{seq: seq} }
}

// Poll reads what was appended since the last read, now. It restarts the
// polling loop: a reply or tick of the loop before it is dropped, so two
// reads of the same offset never both land.
func (m *Model) Poll() tea.Cmd {
	if m.j == nil {
		return nil
	}
	m.seq++
	j, seq, off := m.j, m.seq, m.offset
	return m.com.Cmd(func() tea.Msg {
		es, next, err := j.ReadFrom(off)
		return pollMsg{seq: seq, entries: es, next: next, err: err}
	})
}

func (m *Model) verifyCmd() tea.Cmd {
	m.vseq++
	j, seq := m.j, m.vseq
	return m.com.Cmd(func() tea.Msg {
		v, err := j.Verify()
		return verifyMsg{seq: seq, v: v, err: err}
	})
}

func (m Model) tick() tea.Cmd {
	if m.every <= 0 {
		return nil
	}
	seq := m.seq
	return tea.Tick(m.every, func(time.Time) tea.Msg { return tickMsg{seq: seq} })
}

// Update handles the poll loop and, with focus, the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tickMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		cmd := m.Poll()
		return m, cmd
	case pollMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		first := !m.loaded
		m.loaded = true
		m.pollErr = msg.err
		cmds := []tea.Cmd{m.tick()}
		added := 0
		last := int64(0)
		if n := len(m.entries); n > 0 {
			last = m.entries[n-1].Seq
		}
		for _, e := range msg.entries {
			if e.Seq > last {
				m.entries = append(m.entries, e)
				last = e.Seq
				added++
			}
		}
		if msg.err == nil {
			m.offset = msg.next
		}
		if added > 0 || first {
			m.refilter(added)
			cmds = append(cmds, m.verifyCmd())
		}
		if added > 0 {
			cmds = append(cmds, common.Send(common.JournalChangedMsg{}))
		}
		if msg.err != nil && errors.Is(msg.err, journal.ErrTampered) {
			cmds = append(cmds, m.verifyCmd())
		}
		return m, tea.Batch(cmds...)
	case verifyMsg:
		if msg.seq != m.vseq {
			return m, nil
		}
		m.verify, m.vErr = &msg.v, msg.err
		return m, nil
	case tea.MouseMsg:
		m.cur, _ = m.com.Keys.MoveCursor(msg, m.cur, len(m.shown), m.rows())
		m.clamp()
	case tea.KeyMsg:
		return m.handleKey(msg)
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyMsg) (Model, tea.Cmd) {
	k := m.com.Keys
	if cur, moved := k.MoveCursor(msg, m.cur, len(m.shown), m.rows()); moved {
		m.cur = cur
		m.clamp()
		return m, nil
	}
	switch {
	case key.Matches(msg, k.TypeFilter):
		m.typ = m.nextType()
		m.cur, m.top = 0, 0
		m.refilter(0)
		what := "every entry"
		if m.typ != "" {
			what = string(m.typ) + " entries"
		}
		return m, common.Send(common.StatusMsg{Text: fmt.Sprintf("journal: %s (%d; t cycles)", what, len(m.shown))})
	case key.Matches(msg, k.Back) && m.typ != "":
		m.typ = ""
		m.refilter(0)
		return m, common.Send(common.StatusMsg{Text: "journal: every entry"})
	case key.Matches(msg, k.Open):
		if m.cur < len(m.shown) {
			e := m.entries[m.shown[m.cur]]
			if e.Event != "" {
				return m, common.Send(common.ShowEventMsg{ID: e.Event})
			}
			var res incident.CheckResult
			if e.Type == journal.EntryCheckResult && json.Unmarshal(e.Payload, &res) == nil && len(res.Events) > 0 {
				label := fmt.Sprintf("check %s (journal #%d) · %s", res.Step, e.Seq, common.EventsLabel(len(res.Events)))
				return m, tea.Batch(common.Send(common.FilterMsg{Set: evidence.IDs(res.Events...), Replace: true, Label: label}),
					common.Send(common.StatusMsg{Text: fmt.Sprintf("timeline filtered to the %d events check #%d cites (esc clears)", len(res.Events), e.Seq)}))
			}
			return m, common.Send(common.StatusMsg{Text: fmt.Sprintf("journal #%d names no event", e.Seq)})
		}
	}
	return m, nil
}

// types lists the entry types present, in the order they first appear.
func (m Model) types() []journal.EntryType {
	var out []journal.EntryType
	for _, e := range m.entries {
		if !slices.Contains(out, e.Type) {
			out = append(out, e.Type)
		}
	}
	slices.Sort(out)
	return out
}

// nextType is the filter after the current one: every type, then each
// type present in turn.
func (m Model) nextType() journal.EntryType {
	ts := m.types()
	if m.typ == "" {
		if len(ts) == 0 {
			return ""
		}
		return ts[0]
	}
	i := slices.Index(ts, m.typ)
	if i < 0 || i+1 >= len(ts) {
		return ""
	}
	return ts[i+1]
}

// refilter rebuilds the shown rows; added entries arrived at the top, so
// the cursor stays on the entry it was on unless it was on the newest.
func (m *Model) refilter(added int) {
	prev := -1
	if m.cur > 0 && m.cur < len(m.shown) {
		prev = m.shown[m.cur]
	}
	m.shown = nil
	for i := len(m.entries) - 1; i >= 0; i-- {
		if m.typ == "" || m.entries[i].Type == m.typ {
			m.shown = append(m.shown, i)
		}
	}
	if prev >= 0 {
		if i := slices.Index(m.shown, prev); i >= 0 {
			m.cur = i
		}
	}
	m.clamp()
}

// previewLines is the room under the list for the selected entry in full.
func (m *Model) previewLines() int {
	if m.com.Height >= 16 {
		return 5
	}
	return 0
}

func (m *Model) rows() int { return max(m.com.Height-2-m.previewLines(), 1) }

// Text is what an entry says, for its row: its text, and what its payload
// adds that the text does not (the time a step recorded, a tick's state).
func Text(e journal.Entry) string {
	var p struct {
		Sets string    `json:"sets"`
		At   time.Time `json:"at"`
		Item *int      `json:"item"`
		Done bool      `json:"done"`
	}
	_ = json.Unmarshal(e.Payload, &p)
	t := e.Text
	switch {
	case e.Type == journal.EntryStepDone && p.Sets != "" && !p.At.IsZero():
		rec := p.Sets + " = " + p.At.UTC().Format("2006-01-02 15:04:05Z")
		if t == "" {
			return rec
		}
		return rec + " · " + t
	case e.Type == journal.EntryChecklist && p.Item != nil:
		box := "[ ] "
		if p.Done {
			box = "[x] "
		}
		return box + t
	}
	return t
}

// ref is the step and event an entry concerns, and its text.
func ref(e journal.Entry) string {
	r := e.Step
	if e.Event != "" {
		if r != "" {
			r += " "
		}
		r += "event " + e.Event
	}
	t := Text(e)
	switch {
	case r == "":
		return t
	case t == "":
		return r
	}
	return r + " · " + t
}

func (m *Model) clamp() {
	m.cur, m.top = common.Scroll(m.cur, m.top, len(m.shown), m.rows())
}

// status is the title line's account of the chain.
func (m Model) status() string {
	switch {
	case m.vErr != nil:
		return "cannot verify: " + m.vErr.Error()
	case m.verify == nil:
		return "verifying…"
	case m.verify.OK():
		return fmt.Sprintf("chain ok, %d entries", m.verify.Entries)
	}
	p := m.verify.Problem
	at := fmt.Sprintf("line %d", p.Line)
	if p.Seq > 0 {
		at = fmt.Sprintf("entry %d", p.Seq)
	}
	return fmt.Sprintf("BROKEN at %s: %s", at, p.Reason)
}

// View renders the title line, the column heads and the entries.
func (m Model) View() string {
	st := m.com.Styles
	w, h := m.com.Width, m.com.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	var out []string
	if m.j == nil {
		out = append(out, st.Dim.Render(common.Fit("  no incident workspace: the journal needs one (cordon open DIR)", w)))
	} else {
		title := " " + m.status()
		style := st.ColHeader
		if m.verify != nil && !m.verify.OK() || m.vErr != nil {
			style = st.StatusError
		}
		filter := "all types · t filters"
		if m.typ != "" {
			filter = fmt.Sprintf("type %s (%d) · t next, esc all", m.typ, len(m.shown))
		}
		title += " · " + filter
		if m.pollErr != nil {
			title += " · reading: " + m.pollErr.Error()
		}
		out = append(out, style.Render(common.Fit(title, w)))
		out = append(out, st.ColHeader.Render(common.PadRight("  "+m.row("SEQ", "TIME", "ACTOR", "TYPE", "STEP/EVENT · TEXT", w-2), w)))
		if m.loaded && len(m.shown) == 0 {
			msg := "  the journal is empty: s, d, x, c in the Playbook pane, i (note) and a (assistant) write to it"
			if m.typ != "" {
				msg = "  no entry of this type"
			}
			out = append(out, st.Dim.Render(common.Fit(msg, w)))
		}
		end := min(m.top+m.rows(), len(m.shown))
		for i := m.top; i < end; i++ {
			e := m.entries[m.shown[i]]
			r := m.row(fmt.Sprintf("#%d", e.Seq), e.Time.UTC().Format(m.timeLayout()), e.Actor.Name, string(e.Type), ref(e), w-2)
			if i == m.cur {
				out = append(out, st.RowSelected.Render(common.PadRight("▸ "+r, w)))
				continue
			}
			out = append(out, "  "+r)
		}
	}
	if n := m.previewLines(); n > 0 && m.cur < len(m.shown) {
		for len(out) < h-n {
			out = append(out, "")
		}
		out = append(out, m.preview(n)...)
	}
	for len(out) < h {
		out = append(out, "")
	}
	for i := range out {
		out[i] = common.PadRight(out[i], w)
	}
	return strings.Join(out[:h], "\n")
}

// preview is the selected entry in full, wrapped, in n lines.
func (m Model) preview(n int) []string {
	st, w := m.com.Styles, m.com.Width
	e := m.entries[m.shown[m.cur]]
	who := e.Actor.Name
	if e.Actor.Via != "" {
		who += " (" + e.Actor.Via + ")"
	}
	head := fmt.Sprintf(" #%d %s by %s at %s", e.Seq, e.Type, who, e.Time.UTC().Format("2006-01-02 15:04:05Z"))
	if e.Step != "" {
		head += " · step " + e.Step
	}
	if e.Event != "" {
		head += " · event " + e.Event + " (enter opens it)"
	}
	out := []string{st.Dim.Render(strings.Repeat("─", w)), st.Section.Render(common.Fit(head, w))}
	text := ansi.Wordwrap(evidence.Printable(Text(e)), max(w-2, 8), " -")
	for _, l := range strings.Split(text, "\n") {
		out = append(out, " "+common.Cut(l, w-1))
	}
	if len(out) > n {
		out = out[:n]
		out[n-1] = common.Fit(strings.TrimRight(out[n-1], " ")+" …", w) // the rest: widen the terminal or read cordon journal
	}
	return out
}

// row lays out one entry in w cells; every field passes through Fit, as
// the text of a note or a check quotes hostile evidence.
func (m Model) row(seq, at, actor, typ, text string, w int) string {
	aw, tw := 10, 14
	if w >= 110 {
		aw, tw = 14, 18
	}
	atW := len(m.timeLayout())
	rest := max(w-5-1-atW-1-aw-1-tw-1, 4)
	return common.Pad(seq, 5) + " " + common.Pad(at, atW) + " " + common.Pad(actor, aw) + " " + common.Pad(typ, tw) + " " + common.Fit(text, rest)
}

// timeLayout is how the rows write an entry's time: the time of day while
// the journal holds one day, ISO 8601 date and time once it spans more,
// so that two entries a day apart never read as minutes apart.
func (m Model) timeLayout() string {
	if n := len(m.entries); n > 1 {
		first, last := m.entries[0].Time.UTC(), m.entries[n-1].Time.UTC()
		if first.Format(time.DateOnly) != last.Format(time.DateOnly) {
			return "2006-01-02T15:04:05Z"
		}
	}
	return "15:04:05"
}
