package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/spf13/cobra"
)

const findingsArgs = "--incident DIR [--json] [--agent A] [--min-severity S] [--rules FILE|DIR]"

func cmdFindings(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one finding per line as JSON")
	agent := fs.String("agent", "", "only the findings about agent `A`")
	minSev := fs.String("min-severity", "", "only findings of severity `S` or above (info, low, medium, high, critical)")
	rulesPath := fs.String("rules", "", "rules from `FILE|DIR` (YAML, docs/rules.md) instead of the built-in ones and those cordon.yaml adds")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: findings needs --incident DIR", errUsage)
		}
		if *minSev != "" && detect.SeverityRank(*minSev) < 0 {
			return fmt.Errorf("%w: --min-severity %q: want info, low, medium, high or critical", errUsage, *minSev)
		}
		opt := incident.FindingsOptions{Agent: *agent, MinSeverity: *minSev}
		if *rulesPath != "" {
			rules, err := detect.Load(*rulesPath)
			if err != nil {
				return fmt.Errorf("%w: %w", errUsage, err)
			}
			opt.Rules = rules
		}
		ws, done, err := e.openIncident(*dir)
		if err != nil {
			return err
		}
		defer done()
		if opt.Rules == nil {
			// The built-in rules plus the rules cordon.yaml adds.
			c, err := ws.Config()
			if err != nil {
				return err
			}
			if opt.Rules, err = c.LoadRules(); err != nil {
				return err
			}
		}
		found, err := incident.RunDetectors(ctx, ws.Store, opt)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := jsonEncoder(e.stdout)
			for _, f := range found {
				if f.Events == nil {
					f.Events = []string{}
				}
				if err := enc.Encode(f); err != nil {
					return err
				}
			}
			return nil
		}
		writeFindings(e, found)
		return nil
	}
}

// writeFindings prints findings per agent: severity, span, detector and
// the explanation, then the first evidence ids to open with cordon show.
// On a terminal they are one table fitted to its width.
func writeFindings(e *env, found []detect.Finding) {
	if len(found) == 0 {
		fmt.Fprintln(e.stderr, "no findings")
		return
	}
	if width := termWidth(e.stdout); width > 0 {
		writeFindingsTable(e.stdout, width, found)
		fmt.Fprintf(e.stderr, "%d findings\n", len(found))
		return
	}
	for i, g := range detect.Group(found) {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		name := g.Agent
		if name == "" {
			name = "(no agent)"
		}
		fmt.Fprintf(e.stdout, "%s  %d finding(s)\n", evidence.Printable(name), len(g.Findings))
		for _, f := range g.Findings {
			fmt.Fprintf(e.stdout, "  %-8s  %s–%s  %-28s %s\n", strings.ToUpper(f.Severity),
				f.Start.Format(time.TimeOnly), f.End.Format(time.TimeOnly), f.Detector, evidence.Printable(f.Explanation))
			ids := f.Events
			more := ""
			if len(ids) > 5 {
				ids, more = ids[:5], fmt.Sprintf(" (+%d)", len(f.Events)-5)
			}
			fmt.Fprintf(e.stdout, "  %8s  phase %s; evidence %s%s\n", "", f.Phase, strings.Join(ids, " "), more)
		}
	}
	fmt.Fprintf(e.stderr, "%d findings\n", len(found))
}

// writeFindingsTable is the findings as one table of width columns, the
// most severe agent first as detect.Group orders them: the explanation
// takes what the other columns leave, and EVIDENCE holds the first event
// id whole, for cordon show.
func writeFindingsTable(w io.Writer, width int, found []detect.Finding) {
	headers := []string{"AGENT", "SEVERITY", "START", "END", "DETECTOR", "PHASE", "EVIDENCE", "EXPLANATION"}
	caps := []int{16, 8, 8, 8, 28, 10, 21, 0}
	var rows [][]string
	for _, g := range detect.Group(found) {
		name := g.Agent
		if name == "" {
			name = "(no agent)"
		}
		for _, f := range g.Findings {
			ev := ""
			if len(f.Events) > 0 {
				ev = f.Events[0]
			}
			if len(f.Events) > 1 {
				ev += fmt.Sprintf(" +%d", len(f.Events)-1)
			}
			rows = append(rows, []string{evidence.Printable(name), strings.ToUpper(f.Severity), f.Start.Format(time.TimeOnly),
				f.End.Format(time.TimeOnly), f.Detector, string(f.Phase), ev, evidence.Printable(f.Explanation)})
		}
	}
	// narrow terminals lose the phase, then the end of the span
	for _, drop := range []int{5, 3} {
		if sum(caps)+2*len(caps)+20 <= width {
			break
		}
		headers, caps = slices.Delete(headers, drop, drop+1), slices.Delete(caps, drop, drop+1)
		for i := range rows {
			rows[i] = slices.Delete(rows[i], drop, drop+1)
		}
	}
	writeFitted(w, width, headers, rows, caps)
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
