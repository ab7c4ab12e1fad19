package main

import (
	"context"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/incident"
	"github.com/spf13/cobra"
)

func cmdAttribute(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "what changed and the coverage per source as JSON")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: attribute needs --incident DIR", errUsage)
		}
		ws, err := incident.Create(*dir, incident.AllowShared(shared()))
		if err != nil {
			return err
		}
		defer ws.Close()
		res, err := ws.Attribute(ctx, time.Time{})
		if err != nil {
			return err
		}
		if *asJSON {
			cov, err := attribution.Coverage(ctx, ws.Store)
			if err != nil {
				return err
			}
			if cov == nil {
				cov = []attribution.SourceCoverage{}
			}
			return jsonEncoder(e.stdout).Encode(map[string]any{"checked": res.Checked, "changed": res.Changed, "coverage": cov})
		}
		fmt.Fprintf(e.stdout, "checked %d proxy and sensor events, %d changed agent\n", res.Checked, res.Changed)
		return printCoverage(ctx, e, ws)
	}
}

// printCoverage prints, per source, how many events have an agent.
func printCoverage(ctx context.Context, e *env, ws *incident.Workspace) error {
	cov, err := attribution.Coverage(ctx, ws.Store)
	if err != nil {
		return err
	}
	for _, c := range cov {
		fmt.Fprintf(e.stdout, "%-7s attributed %d of %d attributable (%.1f%%), ambiguous %d, unattributed %d; %d of %d events carry no key\n",
			c.Source, c.Attributed, c.Attributable, c.Percent(), c.Ambiguous, c.Unattributed, c.Total-c.Attributable, c.Total)
	}
	return nil
}
