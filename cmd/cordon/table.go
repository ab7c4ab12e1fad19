package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/lipgloss/table"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/evidence"
)

// column of the search table: cap is the most it takes on a terminal
// (0: what is left, for MESSAGE); fixed columns are never cut, so that
// what they hold can be typed into the next command.
type column struct {
	name  string
	cap   int
	fixed bool
	value func(ev evidence.Event) string
}

func tableColumns(events []evidence.Event, width int) []column {
	cols := []column{
		{"TIME", 23, true, func(ev evidence.Event) string { return ev.Time.Format("2006-01-02T15:04:05.000") }},
		{"SOURCE", 6, false, func(ev evidence.Event) string { return ev.Source }},
		{"AGENT", 16, false, func(ev evidence.Event) string { return ev.Agent }},
		{"KIND", 18, false, func(ev evidence.Event) string { return ev.Kind }},
		{"DEC", 5, false, func(ev evidence.Event) string { return ev.Decision }},
		{"TARGET", 32, false, evidence.Event.Target},
		{"MESSAGE", 0, false, func(ev evidence.Event) string { return ev.Message }},
		// the id, for cordon show ID: never dropped, never cut
		{"ID", 16, true, func(ev evidence.Event) string { return ev.ID }},
	}
	if width == 0 {
		return cols
	}
	// Narrow terminals drop the least telling columns first, until what
	// the others hold leaves the message 20 cells.
	for _, name := range []string{"SOURCE", "TARGET", "DEC"} {
		if contentWidth(cols, events)+20 <= width {
			break
		}
		cols = slices.DeleteFunc(cols, func(c column) bool { return c.name == name })
	}
	return cols
}

// contentWidth is the width the columns other than MESSAGE take for
// events, each up to its cap, with the gaps between columns.
func contentWidth(cols []column, events []evidence.Event) int {
	n := 0
	for _, c := range cols {
		w := len(c.name)
		if c.fixed {
			w = c.cap
		} else {
			for _, ev := range events {
				w = max(w, ansi.StringWidth(evidence.Printable(c.value(ev))))
			}
			w = min(w, c.cap)
		}
		n += w + 2
	}
	return n
}

// writeTable prints events: fitted to width on a terminal, or tab-separated
// full values when width is 0 (a pipe).
func writeTable(w io.Writer, width int, events []evidence.Event) {
	cols := tableColumns(events, width)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	rows := make([][]string, len(events))
	for r, ev := range events {
		rows[r] = make([]string, len(cols))
		for i, c := range cols {
			rows[r][i] = evidence.Printable(c.value(ev))
		}
	}
	if width == 0 {
		fmt.Fprintln(w, strings.Join(names, "\t"))
		for _, row := range rows {
			fmt.Fprintln(w, strings.Join(row, "\t"))
		}
		return
	}
	caps := make([]int, len(cols))
	for i, c := range cols {
		caps[i] = c.cap
		if c.fixed {
			caps[i] = -c.cap
		}
	}
	writeFitted(w, width, names, rows, caps)
}

// writeFitted renders a table to fit width: each column as wide as its
// content up to its cap (a negative cap: exactly that, never cut), and
// the column of cap 0 takes what is left (at least 10). Cells past their
// width are cut with an ellipsis.
func writeFitted(w io.Writer, width int, headers []string, rows [][]string, caps []int) {
	widths := make([]int, len(headers))
	rest := width - 2*(len(headers)-1)
	flex := -1
	for i, h := range headers {
		switch {
		case caps[i] == 0:
			flex = i
			continue
		case caps[i] < 0:
			widths[i] = -caps[i]
		default:
			widths[i] = ansi.StringWidth(h)
			for _, row := range rows {
				widths[i] = max(widths[i], ansi.StringWidth(row[i]))
			}
			widths[i] = min(widths[i], caps[i])
		}
		rest -= widths[i]
	}
	if flex >= 0 {
		widths[flex] = max(rest, 10)
	}
	cut := func(row []string) []string {
		out := make([]string, len(row))
		for i, cell := range row {
			out[i] = fit(cell, widths[i])
		}
		return out
	}
	fitted := make([][]string, len(rows))
	for r, row := range rows {
		fitted[r] = cut(row)
	}
	last := len(headers) - 1
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

// writeEvent prints every non-empty field, then the raw record.
func writeEvent(w io.Writer, ev evidence.Event) {
	v := reflect.ValueOf(ev)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "raw" {
			continue
		}
		f := v.Field(i)
		if f.IsZero() {
			continue
		}
		val := fmt.Sprint(f.Interface())
		if tm, ok := f.Interface().(time.Time); ok {
			val = tm.Format(time.RFC3339Nano)
		}
		if f.Kind() == reflect.Slice {
			val = strings.Trim(val, "[]")
		}
		fmt.Fprintf(w, "%-16s %s\n", name, evidence.Printable(val))
	}
	fmt.Fprintln(w, "\nraw:")
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(ev.Raw), "", "  ") == nil {
		for _, line := range strings.Split(pretty.String(), "\n") {
			fmt.Fprintln(w, "  "+evidence.Printable(line))
		}
		return
	}
	fmt.Fprintln(w, "  "+evidence.Printable(ev.Raw))
}
