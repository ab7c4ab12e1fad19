package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"
)

// width is the terminal's width when stdout is one, else 0: tables are
// fitted to a terminal and written whole into a pipe.
func (e *env) width() int {
	if e.columns > 0 {
		return e.columns
	}
	return termWidth(e.stdout)
}

// fitCol is a column of a fitted table. It is as wide as its widest cell,
// up to max (0: no limit, the column that takes what the others leave);
// when the table is too wide the widest column is cut first, never below
// min. A column the eye or the next command needs whole (an id, a time, a
// severity) has min equal to max.
type fitCol struct {
	name     string
	min, max int
}

// flexMin is the least the column without a max is given before columns
// are dropped to make room for it.
const flexMin = 16

// cutFloor is the narrowest a column is cut to: "ab…".
const cutFloor = 3

// naturalWidths are each column's widest cell, header included, up to
// its max.
func naturalWidths(cols []fitCol, rows [][]string) []int {
	ws := make([]int, len(cols))
	for i, c := range cols {
		ws[i] = ansi.StringWidth(c.name)
		for _, row := range rows {
			ws[i] = max(ws[i], ansi.StringWidth(row[i]))
		}
		if c.max > 0 {
			ws[i] = min(ws[i], c.max)
		}
	}
	return ws
}

// needs is the width the columns other than the flexible one take, gaps
// included, plus flexMin for it.
func needs(cols []fitCol, rows [][]string) int {
	ws := naturalWidths(cols, rows)
	n := 2 * (len(cols) - 1)
	for i, c := range cols {
		if c.max == 0 {
			n += min(ws[i], flexMin)
			continue
		}
		n += ws[i]
	}
	return n
}

// dropColumns leaves out the columns named in order, one by one, while
// the table would not fit width with flexMin for its flexible column: a
// narrow terminal loses the least telling columns rather than cutting
// every value.
func dropColumns(width int, cols []fitCol, rows [][]string, order ...string) ([]fitCol, [][]string) {
	for _, name := range order {
		if needs(cols, rows) <= width {
			break
		}
		i := -1
		for j, c := range cols {
			if c.name == name {
				i = j
			}
		}
		if i < 0 {
			continue
		}
		cols = append(cols[:i:i], cols[i+1:]...)
		kept := make([][]string, len(rows))
		for r, row := range rows {
			kept[r] = append(row[:i:i], row[i+1:]...)
		}
		rows = kept
	}
	return cols, rows
}

// fitWidths is the width of each column so that the table fits width:
// the natural widths, then, while it is too wide, the widest column that
// may still be cut loses a cell. Only columns that may never be cut can
// leave it wider than width.
func fitWidths(width int, cols []fitCol, rows [][]string) []int {
	ws := naturalWidths(cols, rows)
	total := 2 * (len(cols) - 1)
	for _, w := range ws {
		total += w
	}
	for total > width {
		widest := -1
		for i, c := range cols {
			floor := max(c.min, cutFloor)
			if ws[i] <= floor {
				continue
			}
			if widest < 0 || ws[i] > ws[widest] || ws[i] == ws[widest] && c.max == 0 {
				widest = i
			}
		}
		if widest < 0 {
			break
		}
		ws[widest]--
		total--
	}
	return ws
}

// writeFitted renders a table to fit width, cutting cells with an
// ellipsis where fitWidths narrowed their column.
func writeFitted(w io.Writer, width int, cols []fitCol, rows [][]string) {
	widths := fitWidths(width, cols, rows)
	cut := func(row []string) []string {
		out := make([]string, len(row))
		for i, cell := range row {
			out[i] = fit(cell, widths[i])
		}
		return out
	}
	headers := make([]string, len(cols))
	for i, c := range cols {
		headers[i] = c.name
	}
	fitted := make([][]string, len(rows))
	for r, row := range rows {
		fitted[r] = cut(row)
	}
	last := len(cols) - 1
	t := table.New().Border(lipgloss.HiddenBorder()).
		BorderTop(false).BorderBottom(false).BorderLeft(false).BorderRight(false).
		BorderHeader(false).BorderColumn(false).Wrap(false).
		Headers(cut(headers)...).Rows(fitted...).
		StyleFunc(func(_, col int) lipgloss.Style {
			if col == last {
				return lipgloss.NewStyle()
			}
			return lipgloss.NewStyle().PaddingRight(2)
		})
	for _, line := range strings.Split(t.Render(), "\n") {
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
}

// fit cuts s to n cells of the terminal, marking the cut.
func fit(s string, n int) string {
	return ansi.Truncate(s, n, "…")
}

// writeWrapped prints a line of prose: whole when width is 0 (a pipe),
// else wrapped at width with the lines after the first indented by
// indent, so that nothing is cut off a sentence.
func writeWrapped(w io.Writer, width int, indent, line string) {
	if width <= 0 || ansi.StringWidth(line) <= width {
		fmt.Fprintln(w, line)
		return
	}
	// the first line keeps its own indent; the rest take indent
	lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
	body := strings.TrimLeft(line, " ")
	first := true
	for body != "" {
		pad := indent
		if first {
			pad = lead
		}
		room := max(width-ansi.StringWidth(pad), 10)
		// Wrap breaks after a hyphen and can leave it one cell past
		// room; Hardwrap holds the line to room all the same
		part := strings.SplitN(ansi.Hardwrap(ansi.Wrap(body, room, ""), room, true), "\n", 2)
		fmt.Fprintln(w, pad+strings.TrimRight(part[0], " "))
		// the rest is wrapped again at the next line's room: the first
		// line is a prefix of body (the wrap breaks at a space it drops,
		// after a hyphen or inside a word)
		switch {
		case len(part) < 2:
			body = ""
		case strings.HasPrefix(body, part[0]):
			body = strings.TrimLeft(body[len(part[0]):], " ")
		default:
			body = strings.TrimLeft(strings.ReplaceAll(part[1], "\n", " "), " ")
		}
		first = false
	}
}
