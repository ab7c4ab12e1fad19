package report

import (
	"context"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
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

// Suppression is a suppression on the record and the findings it covers.
type Suppression struct {
	incident.Suppression
	// Findings are the ids of the findings it covers now.
	Findings []string `json:"findings"`
}

// suppressions lists the case's suppressions and marks the report's
// findings they cover (rf holds the report's findings, in fs's order).
func suppressions(ctx context.Context, ws *incident.Workspace, fs []detect.Finding, rf []Finding) ([]Suppression, error) {
	sups, err := ws.Suppressions(ctx)
	if err != nil {
		return nil, err
	}
	by, err := ws.SuppressedBy(ctx, fs, sups)
	if err != nil {
		return nil, err
	}
	out := make([]Suppression, 0, len(sups))
	for _, s := range sups {
		rs := Suppression{Suppression: s, Findings: []string{}}
		for _, f := range fs {
			if slices.Contains(by[f.ID], s.ID) {
				rs.Findings = append(rs.Findings, f.ID)
			}
		}
		out = append(out, rs)
	}
	for i := range rf {
		rf[i].SuppressedBy = by[rf[i].ID]
	}
	return out, nil
}

// writeSuppressionsMD lists the suppressions: who, when, what, why, and
// the findings each covers.
func writeSuppressionsMD(p func(string, ...any), sups []Suppression) {
	p("\n## Suppressions\n\n")
	if len(sups) == 0 {
		p("None: no finding was suppressed.\n")
		return
	}
	p("Suppressed findings are still listed above; a suppression changes no check, containment status or verdict.\n\n")
	p("| id | by | at | covers | reason | findings |\n|---|---|---|---|---|---|\n")
	for _, s := range sups {
		by := s.By.Name
		if s.From != "" {
			by += " (" + s.From + ")"
		}
		p("| %s | %s | %s | %s | %s | %s |\n", md(s.ID), md(by), reportTime(s.At), md(s.Scope.String()), md(s.Reason), mdIDs(s.Findings, len(s.Findings)))
	}
}

// suppressedNote is what a suppressed finding's explanation is followed by.
// techniques are the ATT&CK technique ids among tags: attack.t1552.001
// is T1552.001.
func techniques(tags []string) []string {
	var out []string
	for _, t := range tags {
		if id, ok := strings.CutPrefix(strings.ToLower(t), "attack.t"); ok && id != "" && id[0] >= '0' && id[0] <= '9' {
			out = append(out, "T"+id)
		}
	}
	return out
}

// techniqueNote names a finding's ATT&CK techniques after its explanation.
func techniqueNote(tags []string) string {
	if ts := techniques(tags); len(ts) > 0 {
		return " (ATT&CK " + strings.Join(ts, ", ") + ")"
	}
	return ""
}

func suppressedNote(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (suppressed: " + strings.Join(ids, ", ") + ")"
}
