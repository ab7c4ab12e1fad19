package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/evidence"
)

// column of the search table; width 0 means "takes what is left".
type column struct {
	name  string
	width int
	value func(ev evidence.Event) string
}

func tableColumns(width int) []column {
	cols := []column{
		{"TIME", 23, func(ev evidence.Event) string { return ev.Time.Format("2006-01-02T15:04:05.000") }},
		{"SOURCE", 6, func(ev evidence.Event) string { return ev.Source }},
		{"AGENT", 10, func(ev evidence.Event) string { return ev.Agent }},
		{"KIND", 14, func(ev evidence.Event) string { return ev.Kind }},
		{"DEC", 5, func(ev evidence.Event) string { return ev.Decision }},
		{"TARGET", 24, evidence.Event.Target},
		{"MESSAGE", 0, func(ev evidence.Event) string { return ev.Message }},
		{"ID", 16, func(ev evidence.Event) string { return ev.ID }},
	}
	if width == 0 {
		return cols
	}
	// Narrow terminals drop the least telling columns first.
	drop := []string{"SOURCE", "ID", "TARGET", "DEC"}
	for _, name := range drop {
		if fixedWidth(cols)+20 <= width {
			break
		}
		for i, c := range cols {
			if c.name == name {
				cols = append(cols[:i], cols[i+1:]...)
				break
			}
		}
	}
	return cols
}

func fixedWidth(cols []column) int {
	n := 0
	for _, c := range cols {
		n += c.width + 2
	}
	return n
}

// writeTable prints events: fitted to width on a terminal, or tab-separated
// full values when width is 0 (a pipe).
func writeTable(w io.Writer, width int, events []evidence.Event) {
	cols := tableColumns(width)
	if width == 0 {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.name
		}
		fmt.Fprintln(w, strings.Join(names, "\t"))
		for _, ev := range events {
			vals := make([]string, len(cols))
			for i, c := range cols {
				vals[i] = evidence.Printable(c.value(ev))
			}
			fmt.Fprintln(w, strings.Join(vals, "\t"))
		}
		return
	}
	rest := max(width-fixedWidth(cols), 10)
	row := func(get func(c column) string) {
		var b strings.Builder
		for i, c := range cols {
			wd := c.width
			if wd == 0 {
				wd = rest
			}
			cell := fit(get(c), wd)
			b.WriteString(cell)
			if i < len(cols)-1 {
				b.WriteString(strings.Repeat(" ", wd-utf8.RuneCountInString(cell)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	row(func(c column) string { return c.name })
	for _, ev := range events {
		row(func(c column) string { return evidence.Printable(c.value(ev)) })
	}
}

// fit cuts s to n runes, marking the cut.
func fit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
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
