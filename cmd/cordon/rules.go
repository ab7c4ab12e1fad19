package main

import (
	"context"
	"fmt"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
)

const rulesArgs = "check --incident DIR [--rules FILE|DIR]"

// cmdRules is `cordon rules check`: which of a workspace's own queries
// (rules, the playbook's saved searches and checks, the search history)
// read otherwise since unsigned clauses became required. A rule whose
// meaning changed is refused until rewritten, so it fails the command.
func cmdRules(_ context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "check" {
		fmt.Fprintf(e.stderr, "usage: cordon rules %s\n", rulesArgs)
		return fmt.Errorf("%w: rules needs check", errUsage)
	}
	fs := newFlags(e, "rules check", "--incident DIR [--rules FILE|DIR]")
	dir := fs.String("incident", "", "incident workspace `DIR`")
	rulesPath := fs.String("rules", "", "check the rules in `FILE|DIR` instead of those cordon.yaml adds")
	if _, err := parse(fs, args[1:]); err != nil {
		return err
	}
	if *dir == "" && *rulesPath == "" {
		fs.Usage()
		return fmt.Errorf("%w: rules check needs --incident DIR or --rules FILE|DIR", errUsage)
	}
	var rep incident.QueryReport
	var err error
	if *dir == "" {
		rep, err = incident.CheckRuleQueries(*rulesPath)
	} else {
		rep, err = incident.CheckQueries(*dir, *rulesPath)
	}
	if err != nil {
		return err
	}
	refused := 0
	for _, c := range rep.Changes {
		note := ""
		if c.What == "rule" {
			note = " (refused until rewritten)"
			refused++
		}
		fmt.Fprintf(e.stdout, "%s: %s %q changed meaning%s\n    it read:   %s\n    now reads: %s\n    to keep the old meaning write: %s\n",
			c.Where, c.What, c.Query, note, c.Old, c.New, c.Old)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(e.stdout, "%v\n", p)
	}
	fmt.Fprintf(e.stderr, "%d queries checked, %d changed meaning, %d rules refused, %d other rule problems (docs/query.md)\n",
		rep.Checked, len(rep.Changes), refused, len(rep.Problems))
	if refused > 0 || len(rep.Problems) > 0 {
		return fmt.Errorf("%w: %d rules to rewrite, %d other problems", detect.ErrRule, refused, len(rep.Problems))
	}
	return nil
}
