package findings

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// MaxFilterIDs bounds the evidence ids enter puts in the timeline's
// filter: a query of thousands of terms is slow and unreadable.
const MaxFilterIDs = 300

type findingsMsg struct {
	seq      int
	findings []detect.Finding
	err      error
}

// Source is what the pane reads of the case: its findings, by the
// workspace's rules, from the run of the detectors every reader of the
// workspace shares (*incident.Handle), in a slice the pane may sort.
type Source interface {
	Findings(ctx context.Context) ([]detect.Finding, error)
}

// Model is the findings pane.
type Model struct {
	com common.Common
	src Source

	findings []detect.Finding
	loaded   bool
	loading  bool
	seq      int
	cur, top int
	clock    common.Clock
}

// New returns the pane; Load fills it from src.
func New(com common.Common, src Source) Model {
	return Model{com: com, src: src}
}

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.clamp()
}

// SetClock sets how times are shown.
func (m *Model) SetClock(c common.Clock) { m.clock = c }

// Findings returns the rows (for tests).
func (m Model) Findings() []detect.Finding { return m.findings }

// Selected returns the finding under the cursor.
func (m Model) Selected() (detect.Finding, bool) {
	if m.cur < 0 || m.cur >= len(m.findings) {
		return detect.Finding{}, false
	}
	return m.findings[m.cur], true
}

// Loaded reports whether the detectors have run once.
func (m Model) Loaded() bool { return m.loaded }

// Load reads the findings (when the pane is first shown, after an
// ingest): the detectors run again only if the evidence changed since any
// reader of the workspace last asked.
func (m *Model) Load() tea.Cmd {
	m.seq++
	m.loading = true
	ctx, src, seq := m.com.Ctx, m.src, m.seq
	return m.com.Cmd(func() tea.Msg {
		fs, err := src.Findings(ctx)
		Sort(fs)
		return findingsMsg{seq: seq, findings: fs, err: err}
	})
}

// Sort orders findings most severe first, then by start, then detector.
func Sort(fs []detect.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ra, rb := detect.SeverityRank(a.Severity), detect.SeverityRank(b.Severity); ra != rb {
			return ra > rb
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return a.Detector < b.Detector
	})
}

// Query is the timeline filter of a finding's evidence: its event ids, at
// most MaxFilterIDs of them (a search or a facet added later narrows it).
func Query(f detect.Finding) evidence.Query {
	return evidence.IDs(f.Events[:min(len(f.Events), MaxFilterIDs)]...)
}

// Update handles the detectors' reply and, with focus, the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case findingsMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.loading = false
		if msg.err != nil {
			return m, common.Send(common.ErrMsg{Err: fmt.Errorf("findings: %w", msg.err)})
		}
		m.findings, m.loaded = msg.findings, true
		m.clamp()
	case tea.MouseMsg:
		m.cur, _ = m.com.Keys.MoveCursor(msg, m.cur, len(m.findings), m.rowsVisible())
		m.clamp()
	case tea.KeyMsg:
		k := m.com.Keys
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.findings), m.rowsVisible()); moved {
			m.cur = cur
			m.clamp()
			return m, nil
		}
		switch {
		case key.Matches(msg, k.Open):
			return m, m.open()
		}
		m.clamp()
	}
	return m, nil
}

// open filters the timeline to the selected finding's evidence.
func (m Model) open() tea.Cmd {
	if m.cur < 0 || m.cur >= len(m.findings) {
		return nil
	}
	f := m.findings[m.cur]
	if len(f.Events) == 0 {
		return common.Send(common.StatusMsg{Text: "this finding cites no event"})
	}
	text := fmt.Sprintf("timeline filtered to the %d events of %s (esc clears)", len(f.Events), common.Clip(f.Detector, 30))
	if len(f.Events) > MaxFilterIDs {
		text = fmt.Sprintf("timeline filtered to the first %d of %d events of %s (esc clears)", MaxFilterIDs, len(f.Events), common.Clip(f.Detector, 30))
	}
	return tea.Batch(
		common.Send(common.FilterMsg{Set: Query(f), Replace: true, Label: FilterLabel(f)}),
		common.Send(common.StatusMsg{Text: text}))
}

// FilterLabel names a finding's evidence filter in the header: "finding
// boundary-probing · agent-7 · 35 events".
func FilterLabel(f detect.Finding) string {
	agent := f.Agent
	if agent == "" {
		agent = "no agent"
	}
	n := common.EventsLabel(len(f.Events))
	if len(f.Events) > MaxFilterIDs {
		n = fmt.Sprintf("first %d of %s", MaxFilterIDs, n)
	}
	return fmt.Sprintf("finding %s · %s · %s", f.Detector, agent, n)
}

func (m *Model) rowsVisible() int { return max(m.com.Height-2, 1) }

func (m *Model) clamp() {
	m.cur, m.top = common.Scroll(m.cur, m.top, len(m.findings), m.rowsVisible())
}

// Label is a severity as the pane shows it: a word, so that it reads
// without colour.
func Label(sev string) string {
	switch sev {
	case detect.SeverityCritical:
		return "CRIT"
	case detect.SeverityHigh:
		return "HIGH"
	case detect.SeverityMedium:
		return "MED"
	case detect.SeverityLow:
		return "LOW"
	case detect.SeverityInfo:
		return "INFO"
	}
	return strings.ToUpper(sev)
}

func (m Model) sevStyle(sev string) lipgloss.Style {
	st := m.com.Styles
	switch sev {
	case detect.SeverityCritical, detect.SeverityHigh:
		return st.Deny
	case detect.SeverityMedium:
		return st.Warn
	}
	return st.Info
}

// span is a finding's time span in the pane's clock.
func (m Model) span(f detect.Finding) (string, int) {
	c := m.clock
	short := !c.Relative && !c.Days
	start, end := c.Format(f.Start), c.Format(f.End)
	w := c.Width()*2 + 1
	if short {
		start, end, w = start[:8], end[:8], 17
	}
	if f.Start.IsZero() {
		return "", w
	}
	if start == end {
		return start, w
	}
	return start + "–" + end, w
}

// View renders the findings table.
func (m Model) View() string {
	st := m.com.Styles
	h, w := m.com.Height, m.com.Width
	if h <= 0 || w <= 0 {
		return ""
	}
	_, tw := m.span(detect.Finding{})
	aw, dw := 9, 16
	if w >= 110 {
		aw, dw = 12, 22
	}
	ew := max(w-2-5-tw-aw-dw-4, 8)
	row := func(sev, span, agent, det, expl string) string {
		return common.Pad(sev, 4) + " " + common.Pad(span, tw) + " " + common.Pad(agent, aw) + " " +
			common.Pad(det, dw) + " " + common.Fit(expl, ew)
	}
	out := []string{st.ColHeader.Render(common.PadRight("  "+row("SEV", "TIME", "AGENT", "DETECTOR", "EXPLANATION"), w))}
	switch {
	case !m.loaded && m.loading:
		out = append(out, st.Dim.Render("  running the detectors…"))
	case m.loaded && len(m.findings) == 0:
		out = append(out, st.Dim.Render(common.Fit("  no finding: no detector fired on the evidence so far", w)))
	}
	end := min(m.top+m.rowsVisible(), len(m.findings))
	for i := m.top; i < end; i++ {
		f := m.findings[i]
		span, _ := m.span(f)
		agent := f.Agent
		if agent == "" {
			agent = "-"
		}
		sel := i == m.cur
		rest := " " + common.Pad(span, tw) + " " + common.Pad(agent, aw) + " " + common.Pad(f.Detector, dw) + " " + common.Fit(f.Explanation, ew)
		if sel {
			out = append(out, st.RowSelected.Render(common.PadRight("▸ "+common.Pad(Label(f.Severity), 4)+rest, w)))
			continue
		}
		out = append(out, "  "+m.sevStyle(f.Severity).Render(common.Pad(Label(f.Severity), 4))+rest)
	}
	if len(m.findings) > 0 && len(out) < h {
		out = append(out, st.Dim.Render(common.Fit(fmt.Sprintf("  %d findings · enter filters the timeline to a finding's evidence", len(m.findings)), w)))
		out = append(out, m.preview(h-len(out))...)
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out[:h], "\n")
}

// preview is the selected finding in full, wrapped, in at most n lines.
func (m Model) preview(n int) []string {
	if n < 3 || m.cur >= len(m.findings) {
		return nil
	}
	st, w := m.com.Styles, m.com.Width
	f := m.findings[m.cur]
	out := []string{"", st.Section.Render(common.Fit(fmt.Sprintf("  %s %s · %s · %d events", Label(f.Severity), f.Title, f.Phase, len(f.Events)), w))}
	text := ansi.Wordwrap(evidence.Printable(f.Explanation), max(w-4, 8), " ")
	for _, l := range strings.Split(text, "\n") {
		out = append(out, "  "+common.Cut(l, w-2))
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}
