package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/spf13/cobra"
)

const evalArgs = "lint SUITE ... | show [SUITE] | plan [SUITE] --run ID | run [SUITE] --incident DIR [--run ID] [--json] | diff BEFORE.json AFTER.json"

// evalCommands are cordon eval's subcommands.
func evalCommands() []command {
	return []command{
		{"lint", "SUITE ...", "every problem of every suite file as file:line:col", cmdEvalLint, nil},
		{"show", "[SUITE] [--json]", "the tests of the built-in suite or of SUITE: behaviour, rung, evidence, controls", cmdEvalShow, nil},
		{"plan", "[SUITE] --run ID [--canary-domain DOMAIN] [--json]", "for the harness: per test, the probe by name, the inert canaries it touches and the ledger run id; cordon runs no probe", cmdEvalPlan, nil},
		{"run", "[SUITE] --incident DIR [--run ID] [--format md|html] [--json]", "score a test run's workspace: per test, each control fired, missed or could not tell, and why; journaled", cmdEvalRun, nil},
		{"diff", "BEFORE.json AFTER.json [--json]", "two scorecards (eval run --json) side by side, control by control; exit 12 when a control got worse", cmdEvalDiff, nil},
	}
}

func cmdEvalDiff(e *env, c *cobra.Command) {
	asJSON := jsonFlag(c.Flags(), "the diff as JSON")
	c.RunE = func(_ *cobra.Command, args []string) error {
		if len(args) != 2 {
			c.Flags().Usage()
			return fmt.Errorf("%w: eval diff needs two scorecards (cordon eval run --json writes them)", errUsage)
		}
		var cards [2]*eval.Scorecard
		for i, p := range args {
			sc, err := eval.ReadScorecard(p)
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			cards[i] = sc
		}
		d, err := eval.Compare(cards[0], cards[1])
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if *asJSON {
			if err := jsonEncoder(e.stdout).Encode(d); err != nil {
				return err
			}
		} else {
			writeEvalDiff(e, d)
		}
		if d.Worse > 0 {
			return fmt.Errorf("%w: %d control(s) of suite %s", eval.ErrWorse, d.Worse, d.Suite)
		}
		return nil
	}
}

// writeEvalDiff prints the controls whose outcome or time changed, the
// worse first, then the counts.
func writeEvalDiff(e *env, d eval.Diff) {
	took := func(m *capability.Millis) string {
		if m == nil {
			return "-"
		}
		return time.Duration(*m).String()
	}
	for _, v := range []string{"worse", "better", "slower", "faster"} {
		for _, c := range d.Changes {
			if c.Verdict == v {
				fmt.Fprintf(e.stdout, "%-7s %s · %s: %s (%s) → %s (%s)\n", strings.ToUpper(v), evidence.Printable(c.Test), evidence.Printable(c.Control),
					c.Before, took(c.BeforeTook), c.After, took(c.AfterTook))
			}
		}
	}
	for _, id := range d.Gone {
		fmt.Fprintf(e.stdout, "GONE    %s (only the earlier run scored it)\n", evidence.Printable(id))
	}
	for _, id := range d.New {
		fmt.Fprintf(e.stdout, "NEW     %s (only the later run scored it)\n", evidence.Printable(id))
	}
	fmt.Fprintf(e.stdout, "suite %s: %d control(s) compared, %d worse, %d better\n", evidence.Printable(d.Suite), len(d.Changes), d.Worse, d.Better)
}

func cmdEval(e *env, c *cobra.Command) {
	c.RunE = func(_ *cobra.Command, args []string) error {
		fmt.Fprintf(e.stderr, "usage: cordon eval %s\n", evalArgs)
		if len(args) == 0 {
			return fmt.Errorf("%w: eval needs lint, show, plan, run or diff", errUsage)
		}
		return fmt.Errorf("%w: unknown eval command %q (want lint, show, plan, run or diff)", errUsage, args[0])
	}
}

// loadSuite reads the suite named, or the built-in one; a suite with
// problems is a usage error that lists them.
func loadSuite(args []string) (*eval.Suite, error) {
	if len(args) > 1 {
		return nil, fmt.Errorf("%w: one suite at a time", errUsage)
	}
	if len(args) == 0 {
		return eval.Builtin()
	}
	s, err := eval.Load(args[0])
	if errors.Is(err, eval.ErrSuite) {
		return nil, fmt.Errorf("%w: %s", errUsage, err)
	}
	return s, err
}

func cmdEvalLint(e *env, c *cobra.Command) {
	asJSON := jsonFlag(c.Flags(), "each problem as a JSON line (file, line, col, message)")
	c.RunE = func(_ *cobra.Command, files []string) error {
		if len(files) == 0 {
			c.Flags().Usage()
			return fmt.Errorf("%w: eval lint needs a suite file", errUsage)
		}
		n := 0
		say := func(p eval.Problem) {
			n++
			if *asJSON {
				jsonEncoder(e.stdout).Encode(p)
				return
			}
			fmt.Fprintln(e.stdout, evidence.Printable(p.Error()))
		}
		for _, f := range files {
			_, err := eval.Load(f)
			var ps eval.Problems
			switch {
			case errors.As(err, &ps):
				for _, p := range ps {
					say(p)
				}
			case err != nil && *asJSON:
				say(eval.Problem{File: f, Msg: err.Error()})
			case err != nil:
				n++
				fmt.Fprintln(e.stdout, evidence.Printable(err.Error()))
			}
		}
		if n > 0 {
			return fmt.Errorf("%w: %d %s", errUsage, n, countNoun(n, "problem", "problems"))
		}
		if !*asJSON {
			fmt.Fprintln(e.stdout, "ok")
		}
		return nil
	}
}

func cmdEvalShow(e *env, c *cobra.Command) {
	asJSON := jsonFlag(c.Flags(), "the suite as JSON")
	c.RunE = func(_ *cobra.Command, args []string) error {
		s, err := loadSuite(args)
		if err != nil {
			return err
		}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(s)
		}
		fmt.Fprintf(e.stdout, "%s — %s (%s, %d tests)\n", s.Name, s.Title, s.File, len(s.Tests))
		for _, t := range s.Tests {
			fmt.Fprintf(e.stdout, "\n%s:%d:%d  %s  [%s]\n  %s\n", s.File, t.Line, t.Col, t.ID, t.Rung, t.Behaviour)
			if t.Gains != nil {
				fmt.Fprintf(e.stdout, "  tried when it gains: %s%s%s\n", t.Gains.Kind, orEmpty(" of another session", t.Gains.Owner != ""), orEmpty(" matching "+t.Gains.Match, t.Gains.Match != ""))
			}
			for _, q := range t.Evidence {
				fmt.Fprintf(e.stdout, "  evidence: %s\n", evidence.Printable(q))
			}
			if t.MinEvents > 0 {
				fmt.Fprintf(e.stdout, "  at least %d events of one agent%s\n", t.MinEvents, orEmpty(" within "+t.Window.String(), t.Window > 0))
			}
			var cs []string
			for _, ctl := range t.Controls {
				cs = append(cs, ctl.String())
			}
			fmt.Fprintf(e.stdout, "  controls: %s\n", strings.Join(cs, "; "))
		}
		return nil
	}
}

func orEmpty(s string, ok bool) string {
	if ok {
		return s
	}
	return ""
}

func cmdEvalRun(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "the test run's incident workspace `DIR`")
	runID := fs.String("run", "", "score only the events of the ledger run `ID` (eval plan tags a run with it)")
	asJSON := jsonFlag(fs, "the scorecard as JSON")
	format := fs.String("format", "md", "`md` (Markdown) or html (one self-contained page)")
	shared := allowSharedFlag(fs)
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: eval run needs --incident DIR", errUsage)
		}
		if *format != "md" && *format != "html" {
			return fmt.Errorf("%w: --format %q: want md or html (or --json)", errUsage, *format)
		}
		s, err := loadSuite(args)
		if err != nil {
			return err
		}
		ws, err := incident.Open(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer ws.Close()
		ctx := cmd.Context()
		sc, err := eval.ScoreWith(ctx, ws, s, eval.Options{Run: *runID})
		if errors.Is(err, eval.ErrNoRun) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if err != nil {
			return err
		}
		if _, err := eval.Record(ctx, ws, journal.CurrentActor(journal.ViaCLI), sc); err != nil {
			return err
		}
		if *asJSON {
			return eval.WriteJSON(evidence.PrintableJSONWriter(e.stdout), sc)
		}
		// stop controls judge from the case's kill time: with none, say
		// which kill the harness's ledger records (on stderr: stdout is
		// the scorecard)
		writeKillHints(ctx, e, e.stderr, ws, sc.Kill, sc.Subject, *dir, sc.Run)
		if *format == "html" {
			return eval.WriteHTML(e.stdout, sc)
		}
		return eval.WriteMarkdown(e.stdout, sc)
	}
}
