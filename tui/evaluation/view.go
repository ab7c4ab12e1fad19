package evaluation

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// mark says an outcome in a word and a sign: never by colour alone.
func mark(o eval.Outcome) string {
	switch o {
	case eval.Fired:
		return "✓ fired"
	case eval.Missed:
		return "✗ missed"
	case eval.CouldNotTell:
		return "? could not tell"
	}
	return "· " + string(o)
}

// View renders the scorecard: a summary line, then each test tried with
// its controls; at the foot, what the selected row's outcome rests on
// (on a wide terminal also in a column of its own).
func (m Model) View() string {
	st := m.com.Styles
	h, w := m.com.Height, m.com.Width
	if h <= 0 || w <= 0 {
		return ""
	}
	var out []string
	switch {
	case m.sc == nil && m.loading:
		out = append(out, st.Dim.Render(common.Fit("  scoring "+runName(m.run)+" against the suite…", w)))
	case m.sc == nil && m.failed:
		out = append(out, st.Dim.Render(common.Fit("  "+runName(m.run)+" could not be scored: the status line says why (r: another run)", w)))
	case m.sc == nil:
		out = append(out, st.Dim.Render(common.Fit("  not scored yet", w)))
	default:
		out = append(out, common.Fit(m.summary(), w))
	}
	wide := w >= 120
	cw := max(w-2-1-16-1-7, 20)
	if wide {
		cw = 44
	}
	row := func(name, outcome, after, why string) string {
		s := common.Pad(name, cw) + " " + common.Pad(outcome, 16) + " " + common.Pad(after, 7)
		if wide {
			s += " " + evidence.Printable(why)
		}
		return s
	}
	out = append(out, st.ColHeader.Render(common.PadRight("  "+row("TEST · CONTROL", "OUTCOME", "AFTER", "WHY"), w)))
	if m.sc != nil && len(m.rows) == 0 {
		out = append(out, st.Dim.Render(common.Fit("  no test of the suite was tried in this case", w)))
	}
	end := min(m.top+m.rowsVisible(), len(m.rows))
	for i := m.top; i < end; i++ {
		name, outcome, after, why := m.cells(m.rows[i])
		line := row(name, outcome, after, why)
		if i == m.cur {
			out = append(out, st.RowSelected.Render(common.PadRight(common.Cut("▸ "+line, w), w)))
			continue
		}
		out = append(out, common.Cut("  "+line, w))
	}
	for len(out) < h-footRows {
		out = append(out, "")
	}
	out = out[:max(h-footRows, 0)]
	if m.cur >= 0 && m.cur < len(m.rows) {
		_, _, _, why := m.cells(m.rows[m.cur])
		foot := strings.Split(ansi.Wordwrap("  "+evidence.Printable(why), max(w-2, 10), " "), "\n")
		for i := 0; i < footRows; i++ {
			if i < len(foot) {
				out = append(out, st.Dim.Render(common.Cut(foot[i], w)))
			} else {
				out = append(out, "")
			}
		}
	}
	for len(out) < h {
		out = append(out, "")
	}
	return strings.Join(out[:h], "\n")
}

// footRows are the lines at the foot that say why.
const footRows = 2

// cells are a row's test or control, outcome, time and why.
func (m Model) cells(r row) (name, outcome, after, why string) {
	t := m.sc.Tests[r.test]
	if r.control < 0 {
		outcome = "no crossing"
		if t.Crossed {
			outcome = "CROSSED"
		}
		return t.ID + " [" + string(t.Rung) + "]", outcome, "", fmt.Sprintf("%s: tried by %s from %s, %d events",
			t.Behaviour, strings.Join(t.Agents, ", "), m.when(t.First), t.Events)
	}
	c := t.Controls[r.control]
	after = "-"
	if c.After != nil {
		after = shortDur(time.Duration(*c.After))
	}
	return "  " + c.Control, mark(c.Outcome), after, c.Why
}

// summary is the first line: suite, tests tried, how far up the ladder,
// the controls missed.
func (m Model) summary() string {
	sc := m.sc
	tried := 0
	for _, t := range sc.Tests {
		if t.Tried {
			tried++
		}
	}
	run := runName(sc.Run)
	if len(m.runs) > 0 {
		run += fmt.Sprintf(" (r: next of %d)", len(m.runs))
	}
	return fmt.Sprintf("  suite %s · %s · %d/%d tests tried · reached %s · crossed %s · %d missed",
		sc.Suite, run, tried, len(sc.Tests), orDash(string(sc.Reached)), orDash(string(sc.Crossed)), sc.Missed())
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

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

// shortDur says a duration to the second.
func shortDur(d time.Duration) string {
	if d < time.Second {
		return "0s"
	}
	return d.Truncate(time.Second).String()
}
