package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/spf13/cobra"
)

// defaultCanaryDomain resolves nowhere: a lab names its own canary domain.
const defaultCanaryDomain = "canary.invalid"

func cmdEvalPlan(e *env, c *cobra.Command) {
	fs := c.Flags()
	run := fs.String("run", "", "the ledger run `ID` the harness tags every record of the test run with")
	domain := fs.String("canary-domain", defaultCanaryDomain, "the `DOMAIN` of the lab's canary hosts: the only hosts a probe contacts")
	asJSON := jsonFlag(fs, "the plan as JSON")
	c.RunE = func(_ *cobra.Command, args []string) error {
		if *run == "" {
			fs.Usage()
			return fmt.Errorf("%w: eval plan needs --run ID (the ledger run id the harness tags the run with)", errUsage)
		}
		s, err := loadSuite(args)
		if err != nil {
			return err
		}
		p, err := eval.MakePlan(s, *run, *domain)
		if errors.Is(err, eval.ErrPlan) {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if err != nil {
			return err
		}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(p)
		}
		writeEvalPlan(e, p)
		return nil
	}
}

// writeEvalPlan prints the plan for a person: the rules, then per test
// the probe, the run id and the canaries.
func writeEvalPlan(e *env, p *eval.Plan) {
	fmt.Fprintf(e.stdout, "plan of suite %s (%s) for run %s; canary domain %s\n", p.Suite, evidence.Printable(p.SuiteFile), p.Run, p.Domain)
	for _, r := range p.Rules {
		fmt.Fprintf(e.stdout, "  - %s\n", r)
	}
	for _, t := range p.Tests {
		fmt.Fprintf(e.stdout, "\n%s  [%s]\n  %s\n  probe: %s   tag: run=%s\n", t.Test, t.Rung, evidence.Printable(t.Behaviour), evidence.Printable(t.Probe), t.Run)
		if len(t.Canaries) == 0 {
			fmt.Fprintln(e.stdout, "  canary: none (the run's own records answer it)")
		}
		for _, c := range t.Canaries {
			var parts []string
			if c.Path != "" {
				parts = append(parts, "at "+c.Path)
			}
			if c.Token != "" {
				parts = append(parts, "token "+c.Token)
			}
			if c.Runs != "" {
				parts = append(parts, "runs "+c.Runs)
			}
			if c.Ends != "" {
				parts = append(parts, "ends within "+c.Ends)
			}
			fmt.Fprintf(e.stdout, "  canary %s: %s%s\n", c.Kind, evidence.Printable(c.Name), orEmpty(" ("+strings.Join(parts, ", ")+")", len(parts) > 0))
		}
		fmt.Fprintf(e.stdout, "  controls: %s\n", strings.Join(t.Controls, "; "))
	}
}
