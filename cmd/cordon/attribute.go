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
			cov, err := ws.SourceCoverage(ctx)
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

// printCoverage prints, per source, what share of the events attribution
// could tie to an agent (those carrying an address, container, pod or
// credential) an agent's session accounts for. A low share is not by
// itself a failure: machines that are not agents use the same proxy.
func printCoverage(ctx context.Context, e *env, ws *incident.Workspace) error {
	cov, err := ws.SourceCoverage(ctx)
	if err != nil {
		return err
	}
	for _, c := range cov {
		writeWrapped(e.stdout, e.width(), "        ", coverageLine(c))
	}
	return nil
}

// coverageLine says what a source's attribution coverage measures.
func coverageLine(c attribution.SourceCoverage) string {
	return fmt.Sprintf("%-7s %.1f%% of the %d events that carry an address, container, pod or credential come from an agent's session (%d); "+
		"%d match no agent's session, %d more than one; %d of %d events carry none of these",
		c.Source, c.Percent(), c.Attributable, c.Attributed, c.Unattributed, c.Ambiguous, c.Total-c.Attributable, c.Total)
}
