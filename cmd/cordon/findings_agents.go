package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// writeAgentRanking prints cordon findings --by agent: one line per agent
// in the order a responder should look at them (detect.RankAgents), with
// the reason in words; --json writes one object per agent, ranked.
func writeAgentRanking(ctx context.Context, e *env, ws *incident.Workspace, opt incident.FindingsOptions, asJSON bool) error {
	res, err := detectorResult(ctx, e, ws, opt)
	if err != nil {
		return err
	}
	ranks, err := ws.RankScan(ctx, res)
	if err != nil {
		return err
	}
	if opt.Agent != "" {
		kept := ranks[:0]
		for _, r := range ranks {
			if r.Agent == opt.Agent {
				kept = append(kept, r)
			}
		}
		ranks = kept
	}
	if asJSON {
		enc := jsonEncoder(e.stdout)
		for _, r := range ranks {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(ranks) == 0 {
		fmt.Fprintln(e.stderr, "no agents")
		return nil
	}
	for _, r := range ranks {
		name := r.Agent
		if name == "" {
			name = "(no agent)"
		}
		sev := "-"
		if r.Severity != "" {
			sev = strings.ToUpper(r.Severity)
		}
		// the reason wraps under itself on a terminal: it is the answer
		writeWrapped(e.stdout, e.width(), strings.Repeat(" ", 30), fmt.Sprintf("%3d  %-14s %-8s  %s", r.Rank, evidence.Printable(name), sev, evidence.Printable(r.Reason)))
	}
	episodes := 0
	for _, r := range ranks {
		episodes += r.Episodes
	}
	fmt.Fprintf(e.stderr, "%d agents, %d episodes\n", len(ranks), episodes)
	return nil
}
