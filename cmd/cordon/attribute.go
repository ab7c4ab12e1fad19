package main

import (
	"context"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

func cmdAttribute(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "attribute", "--incident DIR")
	dir := fs.String("incident", "", "incident workspace `DIR`")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return fmt.Errorf("%w: attribute needs --incident DIR", errUsage)
	}
	ws, err := incident.Create(*dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	res, err := ws.Attribute(ctx, time.Time{})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "checked %d proxy and sensor events, %d changed agent\n", res.Checked, res.Changed)
	return printCoverage(ctx, e, ws)
}

// printCoverage prints, per source, how many events have an agent.
func printCoverage(ctx context.Context, e *env, ws *incident.Workspace) error {
	c := ws.Store.Counts()
	for _, src := range []string{evidence.SourceProxy, evidence.SourceSensor} {
		total := c.Fields["source"][src]
		if total == 0 {
			continue
		}
		via, err := ws.Store.Facet(ctx, "source:"+src, time.Time{}, time.Time{}, "attributed_via", 20)
		if err != nil {
			return err
		}
		var attributed, ambiguous int64
		for _, v := range via {
			if v.Value == "ambiguous" {
				ambiguous += v.Count
			} else {
				attributed += v.Count
			}
		}
		fmt.Fprintf(e.stdout, "%-7s attributed %d of %d (%.1f%%), ambiguous %d, unattributed %d\n",
			src, attributed, total, 100*float64(attributed)/float64(total), ambiguous, total-attributed-ambiguous)
	}
	return nil
}
