package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/report"
)

// writeIndicatorsTable is the indicator register fitted to a terminal of
// width columns: the value takes what the other columns leave and is cut
// there (cordon indicators | cat, or --json, gives it whole); the first
// evidence id stays whole, for cordon show. Narrow terminals lose the
// last sighting, the finding count, the uses, the first sighting and the
// origin, in that order.
func writeIndicatorsTable(w io.Writer, width int, ins []report.Indicator) {
	cols := []fitCol{{"KIND", 0, 12}, {"VALUE", 0, 0}, {"ORIGIN", 8, 8}, {"AGENTS", 0, 24}, {"FIRST", 8, 8}, {"LAST", 8, 8},
		{"USES", 0, 6}, {"FINDINGS", 0, 8}, {"EVIDENCE", 24, 24}}
	rows := make([][]string, len(ins))
	for i, in := range ins {
		ev := ""
		if len(in.Events) > 0 {
			ev = in.Events[0]
		}
		if len(in.Events) > 1 {
			ev += fmt.Sprintf(" +%d", len(in.Events)-1)
		}
		rows[i] = []string{string(in.Kind), evidence.Printable(in.Value), string(in.Origin), evidence.Printable(strings.Join(in.Agents, ",")),
			stamp(in.First), stamp(in.Last), fmt.Sprint(in.Uses), fmt.Sprint(len(in.Findings)), ev}
	}
	cols, rows = dropColumns(width, cols, rows, "LAST", "FINDINGS", "USES", "FIRST", "ORIGIN")
	writeFitted(w, width, cols, rows)
}
