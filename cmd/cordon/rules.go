package main

import (
	"fmt"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
	"github.com/spf13/cobra"
)

const rulesArgs = "check --incident DIR [--rules FILE|DIR] | export --sigma [--out DIR] [--incident DIR]"

// cmdRules answers `cordon rules` without a subcommand (check, export).
func cmdRules(e *env, c *cobra.Command) {
	c.RunE = func(*cobra.Command, []string) error {
		fmt.Fprintf(e.stderr, "usage: cordon rules %s\n", rulesArgs)
		return fmt.Errorf("%w: rules needs check or export", errUsage)
	}
}

// cmdRulesCheck is `cordon rules check`: which of a workspace's own queries
// (rules, the playbook's saved searches and checks, the search history)
// read otherwise since unsigned clauses became required. A rule whose
// meaning changed is refused until rewritten, so it fails the command.
func cmdRulesCheck(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	rulesPath := fs.String("rules", "", "check the rules in `FILE|DIR` instead of those cordon.yaml adds")
	asJSON := jsonFlag(fs, "the queries that changed meaning and the rule problems as JSON")
	c.RunE = func(_ *cobra.Command, _ []string) error {
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
		if *asJSON {
			changes := []map[string]any{}
			for _, c := range rep.Changes {
				changes = append(changes, map[string]any{"where": c.Where, "what": c.What, "query": c.Query, "read": c.Old.String(), "reads": c.New.String(), "refused": c.What == "rule"})
			}
			problems := []string{}
			for _, p := range rep.Problems {
				problems = append(problems, p.Error())
			}
			if err := jsonEncoder(e.stdout).Encode(map[string]any{"checked": rep.Checked, "changes": changes, "problems": problems}); err != nil {
				return err
			}
		}
		for _, c := range rep.Changes {
			if *asJSON {
				if c.What == "rule" {
					refused++
				}
				continue
			}
			note := ""
			if c.What == "rule" {
				note = " (refused until rewritten)"
				refused++
			}
			fmt.Fprintf(e.stdout, "%s: %s %q changed meaning%s\n    it read:   %s\n    now reads: %s\n    to keep the old meaning write: %s\n",
				c.Where, c.What, c.Query, note, c.Old, c.New, c.Old)
		}
		for _, p := range rep.Problems {
			if !*asJSON {
				fmt.Fprintf(e.stdout, "%v\n", p)
			}
		}
		fmt.Fprintf(e.stderr, "%d queries checked, %d changed meaning, %d rules refused, %d other rule problems (docs/query.md)\n",
			rep.Checked, len(rep.Changes), refused, len(rep.Problems))
		if refused > 0 || len(rep.Problems) > 0 {
			return fmt.Errorf("%w: %d rules to rewrite, %d other problems", detect.ErrRule, refused, len(rep.Problems))
		}
		return nil
	}
}
