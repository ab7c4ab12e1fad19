package findings

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

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
	case "":
		return "-"
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

// View renders the agents screen, or an agent's episodes.
func (m Model) View() string {
	h, w := m.com.Height, m.com.Width
	if h <= 0 || w <= 0 {
		return ""
	}
	var out []string
	if m.open {
		out = m.episodesView()
	} else {
		out = m.agentsView()
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out[:h], "\n")
}

func orNoAgent(a string) string {
	if a == "" {
		return "(no agent)"
	}
	return a
}

// agentsView is the first screen: one line per agent, ranked, with why.
func (m Model) agentsView() []string {
	st, h, w := m.com.Styles, m.com.Height, m.com.Width
	aw := 10
	if w >= 110 {
		aw = 14
	}
	rw := max(w-2-3-1-aw-1-4-1-4-1, 8)
	row := func(rank, agent, sev, eps, reason string) string {
		return common.Pad(rank, 3) + " " + common.Pad(agent, aw) + " " + common.Pad(sev, 4) + " " + common.Pad(eps, 4) + " " + common.Fit(reason, rw)
	}
	out := []string{st.ColHeader.Render(common.PadRight("  "+row("#", "AGENT", "SEV", "EPIS", "WHY"), w))}
	switch {
	case !m.loaded && m.loading:
		out = append(out, st.Dim.Render("  running the detectors…"))
	case m.loaded && len(m.ranks) == 0:
		out = append(out, st.Dim.Render(common.Fit("  no agent and no finding in the evidence so far", w)))
	}
	end := min(m.top+m.rowsVisible(), len(m.ranks))
	for i := m.top; i < end; i++ {
		r := m.ranks[i]
		rest := " " + common.Pad(orNoAgent(r.Agent), aw) + " "
		sev := common.Pad(Label(r.Severity), 4)
		tail := " " + common.Pad(fmt.Sprint(r.Episodes), 4) + " " + common.Fit(r.Reason, rw)
		if i == m.cur {
			out = append(out, st.RowSelected.Render(common.PadRight("▸ "+common.Pad(fmt.Sprint(r.Rank), 3)+rest+sev+tail, w)))
			continue
		}
		out = append(out, "  "+common.Pad(fmt.Sprint(r.Rank), 3)+rest+m.sevStyle(r.Severity).Render(sev)+tail)
	}
	if len(m.ranks) > 0 && len(out) < h {
		episodes, suppressed := 0, 0
		for _, r := range m.ranks {
			episodes += r.Episodes
			suppressed += r.Suppressed
		}
		line := fmt.Sprintf("  %d agents · %d episodes", len(m.ranks), episodes)
		if suppressed > 0 {
			line += fmt.Sprintf(" · %d suppressed", suppressed)
		}
		out = append(out, st.Dim.Render(common.Fit(line+" · enter opens an agent's episodes", w)))
	}
	return out
}

// episodesView is one agent's episodes, most severe first.
func (m Model) episodesView() []string {
	st, h, w := m.com.Styles, m.com.Height, m.com.Width
	_, tw := m.span(detect.Finding{})
	dw := 16
	if w >= 110 {
		dw = 22
	}
	ew := max(w-2-5-tw-dw-3, 8)
	row := func(sev, span, det, expl string) string {
		return common.Pad(sev, 4) + " " + common.Pad(span, tw) + " " + common.Pad(det, dw) + " " + common.Fit(expl, ew)
	}
	head := orNoAgent(m.agent) + " · " + fmt.Sprintf("%d episodes", len(m.episodes))
	for _, r := range m.ranks {
		if r.Agent == m.agent {
			head += " · " + r.Reason
		}
	}
	out := []string{st.Section.Render(common.Fit("  "+head, w)),
		st.ColHeader.Render(common.PadRight("  "+row("SEV", "TIME", "DETECTOR", "EXPLANATION"), w))}
	if len(m.episodes) == 0 {
		out = append(out, st.Dim.Render(common.Fit("  no finding about this agent · esc goes back to the agents", w)))
	}
	end := min(m.top+m.rowsVisible(), len(m.episodes))
	for i := m.top; i < end; i++ {
		f := m.episodes[i]
		span, _ := m.span(f)
		expl := f.Explanation
		if sup := m.suppressedBy[f.ID]; len(sup) > 0 {
			expl = "[suppressed " + strings.Join(sup, ",") + "] " + expl
		}
		rest := " " + common.Pad(span, tw) + " " + common.Pad(f.Detector, dw) + " " + common.Fit(expl, ew)
		if i == m.cur {
			out = append(out, st.RowSelected.Render(common.PadRight("▸ "+common.Pad(Label(f.Severity), 4)+rest, w)))
			continue
		}
		out = append(out, "  "+m.sevStyle(f.Severity).Render(common.Pad(Label(f.Severity), 4))+rest)
	}
	if len(m.episodes) > 0 && len(out) < h {
		out = append(out, st.Dim.Render(common.Fit("  enter filters the timeline to an episode's evidence · s suppresses its detector for this agent (with a reason) · esc back to the agents", w)))
		out = append(out, m.preview(h-len(out))...)
	}
	return out
}

// preview is the selected episode in full, wrapped, in at most n lines.
func (m Model) preview(n int) []string {
	f, ok := m.Selected()
	if n < 3 || !ok {
		return nil
	}
	st, w := m.com.Styles, m.com.Width
	head := fmt.Sprintf("  %s %s · %s · %s", Label(f.Severity), f.Title, f.Phase, common.EventsLabel(f.EventTotal()))
	if f.Matches > 1 {
		head += fmt.Sprintf(" · %d matches", f.Matches)
	}
	out := []string{"", st.Section.Render(common.Fit(head, w))}
	text := evidence.Printable(f.Explanation)
	if len(f.Values) > 0 && !allIn(f.Values, f.Explanation) {
		vals, more := f.Values[:min(len(f.Values), 8)], len(f.Values)-min(len(f.Values), 8)
		text += " — values: " + evidence.Printable(strings.Join(vals, ", "))
		if more > 0 {
			text += fmt.Sprintf(" (+%d)", more)
		}
	}
	if len(f.Tags) > 0 {
		text += " — tags: " + evidence.Printable(strings.Join(f.Tags, ", "))
	}
	for _, l := range strings.Split(ansi.Wordwrap(text, max(w-4, 8), " "), "\n") {
		out = append(out, "  "+common.Cut(l, w-2))
	}
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// allIn reports whether the explanation already names every value.
func allIn(vals []string, text string) bool {
	for _, v := range vals {
		if !strings.Contains(text, v) {
			return false
		}
	}
	return true
}
