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

// sourceCoverage is how many of a source's events have an agent.
type sourceCoverage struct {
	Source       string `json:"source"`
	Total        int64  `json:"total"`
	Attributed   int64  `json:"attributed"`
	Ambiguous    int64  `json:"ambiguous"`
	Unattributed int64  `json:"unattributed"`
}

// coverage counts, per attributed source, how many events have an agent.
func coverage(ctx context.Context, ws *incident.Workspace) ([]sourceCoverage, error) {
	c := ws.Store.Counts()
	var out []sourceCoverage
	for _, src := range []string{evidence.SourceProxy, evidence.SourceSensor} {
		total := c.Fields["source"][src]
		if total == 0 {
			continue
		}
		via, err := ws.Store.Facet(ctx, "source:"+src, time.Time{}, time.Time{}, "attributed_via", 20)
		if err != nil {
			return nil, err
		}
		sc := sourceCoverage{Source: src, Total: total}
		for _, v := range via {
			if v.Value == "ambiguous" {
				sc.Ambiguous += v.Count
			} else {
				sc.Attributed += v.Count
			}
		}
		sc.Unattributed = total - sc.Attributed - sc.Ambiguous
		out = append(out, sc)
	}
	return out, nil
}

// printCoverage prints, per source, how many events have an agent.
func printCoverage(ctx context.Context, e *env, ws *incident.Workspace) error {
	cov, err := coverage(ctx, ws)
	if err != nil {
		return err
	}
	for _, c := range cov {
		fmt.Fprintf(e.stdout, "%-7s attributed %d of %d (%.1f%%), ambiguous %d, unattributed %d\n",
			c.Source, c.Attributed, c.Total, 100*float64(c.Attributed)/float64(c.Total), c.Ambiguous, c.Unattributed)
	}
	return nil
}
