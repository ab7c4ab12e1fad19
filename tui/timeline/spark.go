package timeline

import (
	"math"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
)

// sparkline is the one-line density of the whole incident over time: how
// many events per bucket (from the per-minute counts kept at ingest), where
// actions were denied, and where the cursor is.
type sparkline struct {
	b       evidence.Buckets
	density []int64
	denied  []int64 // nil until loaded
	deny    int64   // the incident's denials when denied was loaded
	updates int     // counts updates since the denied series was loaded
}

// sparkLegend explains the glyphs; it follows the bars on the same line.
const sparkLegend = " !=denied │=cursor"

// sparkLevels are the bar heights, empty to full.
const sparkLevels = " ▁▂▃▄▅▆▇█"

// resetSpark rebuckets the sparkline for the current counts and width and
// asks for the denied series again when it changed.
func (m *Model) resetSpark() tea.Cmd {
	n := max(m.com.Width-len([]rune(sparkLegend)), 0)
	b, d := evidence.Density(m.counts, n)
	resized := len(m.spark.density) != n
	same := b == m.spark.b
	m.spark.b, m.spark.density = b, d
	deny := m.counts.Fields["decision"][evidence.DecisionDeny]
	switch {
	case resized:
		m.spark.denied = nil
	case same && m.spark.denied != nil && deny == m.spark.deny:
		return nil
	case m.spark.denied != nil && m.spark.deny > 0:
		// During an ingest the span grows a little at a time: keep the old
		// series for a few updates rather than a facet round per batch.
		// (A series loaded before the first denial is replaced at once.)
		if m.spark.updates++; m.spark.updates < 8 {
			return nil
		}
	}
	m.spark.updates = 0
	m.spark.deny = deny
	m.sparkSeq++
	if deny == 0 || n == 0 {
		m.spark.denied = make([]int64, n)
		return nil
	}
	return deniedCmd(m)
}

// sparkView renders the sparkline for the current window and cursor.
func (m *Model) sparkView() string {
	st := m.com.Styles
	n := len(m.spark.density)
	if n == 0 {
		return ""
	}
	var peak int64
	for _, v := range m.spark.density {
		peak = max(peak, v)
	}
	cursor := -1
	if ev, ok := m.Selected(); ok && m.counts.Total > 0 {
		cursor = m.spark.b.Index(ev.Time)
	}
	var b strings.Builder
	run := make([]rune, 0, n)
	flush := func() {
		if len(run) > 0 {
			b.WriteString(st.SparkBar.Render(string(run)))
			run = run[:0]
		}
	}
	for i, v := range m.spark.density {
		switch {
		case i == cursor:
			flush()
			b.WriteString(st.SparkCursor.Render("│"))
		case i < len(m.spark.denied) && m.spark.denied[i] > 0:
			flush()
			b.WriteString(st.SparkDeny.Render("!"))
		default:
			run = append(run, level(v, peak))
		}
	}
	flush()
	b.WriteString(st.Dim.Render(sparkLegend))
	return b.String()
}

// level maps a count to a bar; the square root keeps a quiet minute visible
// next to a burst.
func level(v, peak int64) rune {
	levels := []rune(sparkLevels)
	if v <= 0 || peak <= 0 {
		return levels[0]
	}
	f := math.Sqrt(float64(v) / float64(peak))
	i := 1 + int(f*float64(len(levels)-2)+0.5)
	return levels[min(i, len(levels)-1)]
}
