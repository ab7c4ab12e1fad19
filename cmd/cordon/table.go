package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// column of the search table: what it holds and how it fits a terminal
// (fitCol); the time and the id are never cut, so that what they hold can
// be typed into the next command.
type column struct {
	fitCol
	value func(ev evidence.Event) string
}

func searchColumns() []column {
	return []column{
		{fitCol{"TIME", 23, 23}, func(ev evidence.Event) string { return ev.Time.Format("2006-01-02T15:04:05.000") }},
		{fitCol{"SOURCE", 0, 6}, func(ev evidence.Event) string { return ev.Source }},
		{fitCol{"AGENT", 0, 16}, func(ev evidence.Event) string { return ev.Who() }},
		{fitCol{"KIND", 0, 18}, func(ev evidence.Event) string { return ev.Kind }},
		{fitCol{"DEC", 0, 5}, func(ev evidence.Event) string { return ev.Decision }},
		{fitCol{"TARGET", 0, 32}, evidence.Event.Target},
		{fitCol{"MESSAGE", 0, 0}, func(ev evidence.Event) string { return ev.Message }},
		// the id, for cordon show ID: never dropped, never cut
		{fitCol{"ID", 16, 16}, func(ev evidence.Event) string { return ev.ID }},
	}
}

// writeTable prints events: fitted to width on a terminal, or tab-separated
// full values when width is 0 (a pipe). Narrow terminals drop the least
// telling columns first (source, target, decision).
func writeTable(w io.Writer, width int, events []evidence.Event) {
	cols := searchColumns()
	fcs := make([]fitCol, len(cols))
	rows := make([][]string, len(events))
	for i, c := range cols {
		fcs[i] = c.fitCol
	}
	for r, ev := range events {
		rows[r] = make([]string, len(cols))
		for i, c := range cols {
			rows[r][i] = evidence.Printable(c.value(ev))
		}
	}
	if width == 0 {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.name
		}
		fmt.Fprintln(w, strings.Join(names, "\t"))
		for _, row := range rows {
			fmt.Fprintln(w, strings.Join(row, "\t"))
		}
		return
	}
	fcs, rows = dropColumns(width, fcs, rows, "SOURCE", "TARGET", "DEC")
	writeFitted(w, width, fcs, rows)
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
