package indicators

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/report"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/findings"
)

// Source reads the register, redacted as every output of the case is.
type Source func(ctx context.Context) ([]report.Indicator, error)

type loadedMsg struct {
	seq int
	ins []report.Indicator
	err error
}

// Model is the indicator pane.
type Model struct {
	com      common.Common
	src      Source
	ins      []report.Indicator
	loaded   bool
	loading  bool
	seq      int
	cur, top int
	clock    common.Clock
}

// New returns the pane; Load fills it from src.
func New(com common.Common, src Source) Model { return Model{com: com, src: src} }

// SetSize sets the pane's size.
func (m *Model) SetSize(w, h int) {
	m.com = m.com.SetSize(w, h)
	m.clamp()
}

// SetClock sets how times are shown.
func (m *Model) SetClock(c common.Clock) { m.clock = c }

// Indicators returns the rows (for tests).
func (m Model) Indicators() []report.Indicator { return m.ins }

// Loaded reports whether the register was read once.
func (m Model) Loaded() bool { return m.loaded }

// Load reads the register (from the detectors' run the workspace keeps).
func (m *Model) Load() tea.Cmd {
	if m.src == nil {
		return nil
	}
	m.seq++
	m.loading = true
	ctx, src, seq := m.com.Ctx, m.src, m.seq
	return m.com.Cmd(func() tea.Msg {
		ins, err := src(ctx)
		return loadedMsg{seq: seq, ins: ins, err: err}
	})
}

// Update handles the register's arrival and, with focus, the pane's keys.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		m.loading = false
		if msg.err != nil {
			return m, common.Send(common.ErrMsg{Err: fmt.Errorf("indicators: %w", msg.err)})
		}
		m.ins, m.loaded = msg.ins, true
		m.clamp()
	case tea.MouseMsg:
		m.cur, _ = m.com.Keys.MoveCursor(msg, m.cur, len(m.ins), m.rowsVisible())
		m.clamp()
	case tea.KeyMsg:
		k := m.com.Keys
		if cur, moved := k.MoveCursor(msg, m.cur, len(m.ins), m.rowsVisible()); moved {
			m.cur = cur
			m.clamp()
			return m, nil
		}
		if key.Matches(msg, k.Open) {
			return m, m.open()
		}
	}
	return m, nil
}

// open filters the timeline to the selected value's events.
func (m Model) open() tea.Cmd {
	if m.cur < 0 || m.cur >= len(m.ins) {
		return nil
	}
	in := m.ins[m.cur]
	if len(in.Events) == 0 {
		return common.Send(common.StatusMsg{Text: "this indicator cites no event"})
	}
	ids := in.Events[:min(len(in.Events), findings.MaxFilterIDs)]
	n := common.EventsLabel(len(ids))
	if len(ids) < len(in.Events) {
		n = fmt.Sprintf("first %d of %s", len(ids), common.EventsLabel(len(in.Events)))
	}
	label := fmt.Sprintf("indicator %s %s · %s", in.Kind, common.Clip(in.Value, 40), n)
	return tea.Batch(
		common.Send(common.FilterMsg{Set: evidence.IDs(ids...), Replace: true, Label: label}),
		common.Send(common.StatusMsg{Text: "timeline filtered to the " + n + " of " + common.Clip(in.Value, 50) + " (esc clears)"}))
}

func (m *Model) rowsVisible() int { return max(m.com.Height-2, 1) }

func (m *Model) clamp() {
	m.cur, m.top = common.Scroll(m.cur, m.top, len(m.ins), m.rowsVisible())
}

// View renders the register.
func (m Model) View() string {
	st := m.com.Styles
	h, w := m.com.Height, m.com.Width
	if h <= 0 || w <= 0 {
		return ""
	}
	tw := m.clock.Width()
	if !m.clock.Relative && !m.clock.Days {
		tw = len(time.DateOnly) // seconds, or an outlier's whole date
	}
	agw := 16
	vw := max(w-2-10-9-agw-2*tw-5-8-8, 12)
	row := func(kind, value, origin, agents, first, last, uses, findings string) string {
		return common.Pad(kind, 10) + " " + common.Pad(value, vw) + " " + common.Pad(origin, 8) + " " + common.Pad(agents, agw) + " " +
			common.Pad(first, tw) + " " + common.Pad(last, tw) + " " + common.Pad(uses, 5) + " " + common.Pad(findings, 8)
	}
	out := []string{st.ColHeader.Render(common.PadRight("  "+row("KIND", "VALUE", "ORIGIN", "AGENTS", "FIRST", "LAST", "USES", "FINDINGS"), w))}
	switch {
	case !m.loaded && m.loading:
		out = append(out, st.Dim.Render("  reading the capability sets…"))
	case m.loaded && len(m.ins) == 0:
		out = append(out, st.Dim.Render(common.Fit("  no indicator: no agent reached anything beyond its grant", w)))
	}
	end := min(m.top+m.rowsVisible(), len(m.ins))
	for i := m.top; i < end; i++ {
		in := m.ins[i]
		line := row(in.Kind, in.Value, string(in.Origin), strings.Join(in.Agents, ","), m.when(in.First), m.when(in.Last),
			fmt.Sprint(in.Uses), fmt.Sprint(len(in.Findings)))
		if i == m.cur {
			out = append(out, st.RowSelected.Render(common.PadRight(common.Fit("▸ "+line, w), w)))
			continue
		}
		out = append(out, common.Fit("  "+line, w))
	}
	if len(m.ins) > 0 && len(out) < h {
		out = append(out, st.Dim.Render(common.Fit(fmt.Sprintf("  %d indicators · enter filters the timeline to a value's events · cordon export --format stix writes them", len(m.ins)), w)))
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out[:h], "\n")
}

// when is a sighting's time in the pane's clock to the second; an
// outlier's date (Clock.Format) is kept whole, never cut to "2026-12-".
func (m Model) when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	s := m.clock.Format(t)
	if !m.clock.Relative && !m.clock.Days && len(s) == len("15:04:05.000") {
		s = s[:len("15:04:05")]
	}
	return s
}
