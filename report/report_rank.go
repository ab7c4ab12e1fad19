package report

import (
	"strings"

	"github.com/cordon-ir/cordon/detect"
)

// writeRankingMD writes the agents in the order to look at them, each with
// why: the same ranking as cordon findings --by agent.
func writeRankingMD(p func(string, ...any), ranks []detect.AgentRank) {
	p("\n## Agents by concern\n\n")
	if len(ranks) == 0 {
		p("No agents.\n")
		return
	}
	p("| # | agent | severity | episodes | why |\n|---|---|---|---|---|\n")
	for _, r := range ranks {
		agent, sev := r.Agent, "—"
		if agent == "" {
			agent = "(no agent)"
		}
		if r.Severity != "" {
			sev = strings.ToUpper(r.Severity)
		}
		p("| %d | %s | %s | %d | %s |\n", r.Rank, md(agent), md(sev), r.Episodes, md(r.Reason))
	}
}
