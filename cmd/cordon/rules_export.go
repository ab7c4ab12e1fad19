package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/sigma"
	"github.com/spf13/cobra"
)

// cmdRulesExport is `cordon rules export --sigma`: cordon's rules (the
// built-in ones, and a workspace's own with --incident) written as Sigma
// rules, one file per rule, and those Sigma cannot express named with the
// reason (docs/sigma.md, Export).
func cmdRulesExport(e *env, c *cobra.Command) {
	fs := c.Flags()
	asSigma := fs.Bool("sigma", false, "write Sigma rules (the one format export writes)")
	out := fs.StringP("out", "o", "", "write the rules into `DIR` (default: print them to stdout)")
	dir := fs.String("incident", "", "also export the rules the workspace `DIR`'s cordon.yaml adds")
	shared := allowSharedFlag(fs)
	c.RunE = func(_ *cobra.Command, _ []string) error {
		if !*asSigma {
			fs.Usage()
			return fmt.Errorf("%w: rules export needs --sigma", errUsage)
		}
		rules, err := exportableRules(*dir, shared())
		if err != nil {
			return err
		}
		exported, not, err := sigma.Export(rules, nil)
		if err != nil {
			return err
		}
		if *out != "" {
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return err
			}
		}
		for _, ex := range exported {
			if *out == "" {
				fmt.Fprintf(e.stdout, "# file: %s\n%s", ex.File, ex.YAML)
				continue
			}
			path := filepath.Join(*out, ex.File)
			if err := os.WriteFile(path, ex.YAML, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "wrote %s (%s)\n", path, ex.Logsource)
		}
		for _, n := range not {
			fmt.Fprintf(e.stderr, "not exported: %s (%s): %s\n", n.RuleID, n.Origin, n.Reason)
		}
		fmt.Fprintf(e.stderr, "%d rule(s) exported as Sigma, %d not exportable\n", len(exported), len(not))
		return nil
	}
}

// exportableRules are the built-in rules, and with a workspace the rules
// its cordon.yaml adds.
func exportableRules(dir string, shared bool) ([]detect.Rule, error) {
	if dir == "" {
		return detect.Builtin()
	}
	ws, err := incident.Open(dir, incident.AllowShared(shared))
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	cfg, err := ws.Config()
	if err != nil {
		return nil, err
	}
	return cfg.LoadRules()
}
