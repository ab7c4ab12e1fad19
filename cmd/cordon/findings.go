package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/spf13/cobra"
)

const findingsArgs = "--incident DIR [--json] [--by agent] [--agent A] [--min-severity S] [--rules FILE|DIR] [--sigma FILE|DIR]..."

func cmdFindings(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one finding (with --by agent, one agent) per line as JSON")
	by := fs.String("by", "", "`agent`: one line per agent, ranked by concern, with the reason")
	agent := fs.String("agent", "", "only the findings about agent `A`")
	minSev := fs.String("min-severity", "", "only findings of severity `S` or above (info, low, medium, high, critical)")
	rulesPath := fs.String("rules", "", "rules from `FILE|DIR` (YAML, docs/rules.md) instead of the built-in ones and those cordon.yaml adds (run in memory, not kept)")
	sigmaPaths := fs.StringArray("sigma", nil, "Sigma rules from `FILE|DIR` (docs/sigma.md) run beside the case's rules, in memory, not kept; repeatable")
	recompute := fs.Bool("recompute", false, "run the detectors again over every stored event (read from the replay log while it is of the index) instead of reading the result kept with the case")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: findings needs --incident DIR", errUsage)
		}
		if *by != "" && *by != "agent" {
			return fmt.Errorf("%w: --by %q: want agent", errUsage, *by)
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
		open := e.openIncident
		if opt.Rules == nil && len(*sigmaPaths) == 0 && !*recompute {
			open = e.openOrHeld // the kept answer is all it reads
		}
		ws, done, err := open(*dir)
		if err != nil {
			return err
		}
		defer done()
		defer func() {
			if n := ws.HeldUnmatched(); n > 0 {
				fmt.Fprintf(e.stderr, "cordon: %d suppression(s) with a query were not matched (they need the index): what they cover is listed unsuppressed\n", n)
			}
		}()
		if len(*sigmaPaths) > 0 {
			if opt.Rules, err = withSigma(e, ws, opt.Rules, *sigmaPaths); err != nil {
				return err
			}
		}
		if *recompute {
			ws.Recompute()
		}
		if *by == "agent" {
			return writeAgentRanking(ctx, e, ws, opt, *asJSON)
		}
		res, err := detectorResult(ctx, e, ws, opt)
		if err != nil {
			return err
		}
		found := opt.Filter(res.Findings)
		sups, err := ws.Suppressions(ctx)
		if err != nil {
			return err
		}
		covered, err := ws.SuppressedBy(ctx, found, sups)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := jsonEncoder(e.stdout)
			for _, f := range found {
				if f.Events == nil {
					f.Events = []string{}
				}
				if err := enc.Encode(findingLine{f, covered[f.ID]}); err != nil {
					return err
				}
			}
			return nil
		}
		writeFindings(e, found, covered)
		return nil
	}
}

// findingLine is a finding as --json prints it: the suppressions on the
// record that cover it, if any (it is listed all the same).
type findingLine struct {
	detect.Finding
	SuppressedBy []string `json:"suppressed_by,omitempty"`
}

// writeFindings prints findings per agent: severity, span, detector and
// the explanation, then the first evidence ids to open with cordon show.
// On a terminal they are one table fitted to its width.
func writeFindings(e *env, found []detect.Finding, suppressedBy map[string][]string) {
	if len(found) == 0 {
		fmt.Fprintln(e.stderr, "no findings")
		return
	}
	if width := e.width(); width > 0 {
		writeFindingsTable(e.stdout, width, found, suppressedBy)
		writeFindingsCount(e, found, suppressedBy)
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
			ids, n := f.Evidence(5)
			more := ""
			if n > 0 {
				more = fmt.Sprintf(" (+%d)", n)
			}
			episode := ""
			if f.Matches > 1 {
				episode = fmt.Sprintf("; %d matches", f.Matches)
			}
			if len(f.Values) > 0 {
				vals, n := f.Values[:min(len(f.Values), 5)], len(f.Values)-min(len(f.Values), 5)
				episode += "; values " + evidence.Printable(strings.Join(vals, ", "))
				if n > 0 {
					episode += fmt.Sprintf(" (+%d)", n)
				}
			}
			if sup := suppressedBy[f.ID]; len(sup) > 0 {
				episode += "; suppressed by " + strings.Join(sup, ", ")
			}
			if len(f.Tags) > 0 {
				more += "; tags " + evidence.Printable(strings.Join(f.Tags, ", "))
			}
			fmt.Fprintf(e.stdout, "  %8s  phase %s%s; evidence %s%s\n", "", f.Phase, episode, strings.Join(ids, " "), more)
		}
	}
	writeFindingsCount(e, found, suppressedBy)
}

// writeFindingsCount says on stderr how many findings were listed, and how
// many of them a suppression covers.
func writeFindingsCount(e *env, found []detect.Finding, suppressedBy map[string][]string) {
	if len(suppressedBy) > 0 {
		fmt.Fprintf(e.stderr, "%d findings, %d suppressed (still listed; cordon suppress list)\n", len(found), len(suppressedBy))
		return
	}
	fmt.Fprintf(e.stderr, "%d findings\n", len(found))
}

// writeFindingsTable is the findings as one table of width columns, the
// most severe agent first as detect.Group orders them: the explanation
// takes what the other columns leave, and is what is cut; the severity,
// the detector (what cordon suppress names) and EVIDENCE, the first event
// id whole for cordon show, never are. Narrow terminals lose the phase,
// then the end and the start of the span.
func writeFindingsTable(w io.Writer, width int, found []detect.Finding, suppressedBy map[string][]string) {
	cols := []fitCol{{"AGENT", 0, 16}, {"SEVERITY", 8, 8}, {"START", 8, 8}, {"END", 8, 8},
		{"DETECTOR", 40, 40}, {"PHASE", 0, 10}, {"EVIDENCE", 24, 24}, {"EXPLANATION", 0, 0}}
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
			explain := evidence.Printable(f.Explanation)
			if sup := suppressedBy[f.ID]; len(sup) > 0 {
				explain += " (suppressed by " + strings.Join(sup, ", ") + ")"
			}
			rows = append(rows, []string{evidence.Printable(name), strings.ToUpper(f.Severity), f.Start.Format(time.TimeOnly),
				f.End.Format(time.TimeOnly), evidence.Printable(f.Detector), string(f.Phase), ev, explain})
		}
	}
	cols, rows = dropColumns(width, cols, rows, "PHASE", "END", "START")
	writeFitted(w, width, cols, rows)
}

// detectorResult is the detectors' result the command reads: the one kept
// with the case for the workspace's own rules (the built-in ones and
// cordon.yaml's), or a run in memory of the rules --rules names.
func detectorResult(ctx context.Context, e *env, ws *incident.Workspace, opt incident.FindingsOptions) (detect.Result, error) {
	if opt.Rules == nil {
		start := time.Now()
		r, err := ws.Result(ctx)
		if why, kept := ws.Stale(); why != "" && err == nil {
			// a slow command says why it was slow, and whether the next will be
			next := "kept for the next command"
			if !kept {
				next = "not kept (the workspace is not this user's to write, or is open to others)"
			}
			fmt.Fprintf(e.stderr, "cordon: %s: the detectors ran again (%s, reading %s); %s\n", why, time.Since(start).Round(time.Millisecond), ws.ReplayedFrom(), next)
		}
		return r, err
	}
	// the keys in tool calls and outputs count, as in the kept result
	opt.Secrets, _ = ws.Redactor()
	opt.Agent, opt.MinSeverity = "", ""
	return ws.ScanWith(ctx, opt)
}
