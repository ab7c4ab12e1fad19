package detect

import (
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"maps"
	"sort"
	"strings"
)

// AgentRank is one agent's line in the ranking a responder reads first:
// what it holds, what fired about it, and why it stands where it does.
type AgentRank struct {
	// Rank is its place, from 1.
	Rank  int    `json:"rank"`
	Agent string `json:"agent"`
	// Open says it needs containment (an acquired capability, or a
	// finding of severity medium or above) and is not contained.
	Open bool `json:"open"`
	// Contained says the case's Assessment has it contained: it is the
	// subject, a kill time is recorded, and every layer is stopped.
	Contained bool `json:"contained"`
	// Acquired counts its acquired capabilities per kind.
	Acquired map[capability.Kind]int `json:"acquired,omitempty"`
	// Holds says it may hold one of them still: for the subject, one
	// the Assessment does not find stopped; for another agent, one no
	// authoritative end is recorded for.
	Holds bool `json:"holds"`
	// BytesOut is what its acquired data-out destinations received.
	BytesOut int64 `json:"bytes_out,omitempty"`
	// Severity is the highest severity of its findings ("" for none).
	Severity string `json:"severity,omitempty"`
	// Detectors are the distinct detectors that fired about it, most
	// severe first.
	Detectors []string `json:"detectors"`
	// Episodes counts its findings (each an episode).
	Episodes int `json:"episodes"`
	// Suppressed counts those of its findings a suppression covers; they
	// are still counted above and still listed.
	Suppressed int `json:"suppressed,omitempty"`
	// Reason says in words why it stands where it does.
	Reason string `json:"reason"`
}

// openSeverity is the severity from which a finding makes its agent need
// containment: the sample incidents' benign agents get none.
const openSeverity = SeverityMedium

// RankInput is what the ranking reads.
type RankInput struct {
	Findings     []Finding
	Capabilities *capability.Set
	// Holdings stand for Capabilities where only they are at hand (the
	// fleet's console reads what watchers publish of each agent's set):
	// the ranking reads nothing else of a set. Capabilities wins.
	Holdings map[string]capability.Holding
	// Assessment is the case's one answer to "is it stopped?" (nil: none
	// yet); the ranking reads it for the subject and decides nothing.
	Assessment *capability.Assessment
	// Standings are each agent's own Standing where agents are assessed
	// one by one (the fleet's watchers, each agent at the kill its harness
	// recorded); the case's Assessment wins for its subject.
	Standings map[string]capability.Standing
	// Suppressed holds the ids of the findings a suppression covers: they
	// rank like any other (a suppression never changes a verdict) and
	// are counted.
	Suppressed map[string]bool
}

// RankAgents ranks every agent with a finding or a capability set, in
// turn by: open (needs containment and is not contained), holds an
// acquired capability (one the evidence shows no end of), highest severity, distinct detectors, episodes,
// then name; findings of no agent come last. This is the one ranking of
// agents in cordon: the Findings pane, the report, cordon findings --by
// agent and every other list of agents by concern read it.
func RankAgents(in RankInput) []AgentRank {
	fs := in.Findings
	by := map[string]*AgentRank{}
	get := func(a string) *AgentRank {
		r := by[a]
		if r == nil {
			r = &AgentRank{Agent: a, Detectors: []string{}}
			by[a] = r
		}
		return r
	}
	sev := map[string]map[string]int{} // agent -> detector -> severity rank
	for _, f := range fs {
		r := get(f.Agent)
		r.Episodes++
		if in.Suppressed[f.ID] {
			r.Suppressed++
		}
		if SeverityRank(f.Severity) > SeverityRank(r.Severity) {
			r.Severity = f.Severity
		}
		if sev[f.Agent] == nil {
			sev[f.Agent] = map[string]int{}
		}
		if s, ok := sev[f.Agent][f.Detector]; !ok || SeverityRank(f.Severity) > s {
			sev[f.Agent][f.Detector] = SeverityRank(f.Severity)
		}
	}
	for a, h := range in.holdings() {
		r := get(a)
		r.Acquired = maps.Clone(h.Acquired)
		_, judged := in.standing(a)
		r.Holds = h.Unended && !judged
		r.BytesOut = h.BytesOut
	}
	out := make([]AgentRank, 0, len(by))
	for a, r := range by {
		ds := sev[a]
		for d := range ds {
			r.Detectors = append(r.Detectors, d)
		}
		sort.Slice(r.Detectors, func(i, j int) bool {
			if ds[r.Detectors[i]] != ds[r.Detectors[j]] {
				return ds[r.Detectors[i]] > ds[r.Detectors[j]]
			}
			return r.Detectors[i] < r.Detectors[j]
		})
		needs := r.needsContainment()
		if st, ok := in.standing(a); ok {
			r.Contained, r.Holds = st.Contained, st.Holds
		}
		r.Open = needs && !r.Contained
		r.Reason = r.reason()
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return rankBefore(out[i], out[j]) })
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// needsContainment says the agent acquired something or has a finding of
// the severity that calls for containment.
func (r AgentRank) needsContainment() bool {
	return len(r.Acquired) > 0 || SeverityRank(r.Severity) >= SeverityRank(openSeverity)
}

// JudgedBy is r's line as an Assessment of its agent at another kill time
// than the ranking's says it (a verdict request's kill): contained,
// holds, open and the reason as RankAgents would give them. Its place
// (Rank) stays the ranking's.
func (r AgentRank) JudgedBy(st capability.Standing) AgentRank {
	r.Contained, r.Holds = st.Contained, st.Holds
	r.Open = r.needsContainment() && !r.Contained
	r.Reason = r.reason()
	return r
}

func rankBefore(a, b AgentRank) bool {
	if (a.Agent == "") != (b.Agent == "") {
		return b.Agent == ""
	}
	if a.Open != b.Open {
		return a.Open
	}
	if a.Holds != b.Holds {
		return a.Holds
	}
	if sa, sb := SeverityRank(a.Severity), SeverityRank(b.Severity); sa != sb {
		return sa > sb
	}
	if len(a.Detectors) != len(b.Detectors) {
		return len(a.Detectors) > len(b.Detectors)
	}
	if a.Episodes != b.Episodes {
		return a.Episodes > b.Episodes
	}
	return a.Agent < b.Agent
}

// acquiredWords says each kind of acquired capability as a responder
// would: "acquired 2 credentials".
var acquiredWords = []struct {
	kind      capability.Kind
	one, many string
}{
	{capability.Credential, "acquired a credential", "acquired %d credentials"},
	{capability.Place, "acted from a place outside its sandbox", "acted from %d places outside its sandbox"},
	{capability.Job, "queued a job", "queued %d jobs"},
	{capability.Workload, "created a workload", "created %d workloads"},
	{capability.Process, "left a process running", "left %d processes running"},
	{capability.Schedule, "scheduled a follow-up", "scheduled %d follow-ups"},
	{capability.Persisted, "persisted a file", "persisted %d files"},
}

func (r AgentRank) reason() string {
	var parts []string
	switch {
	case r.Contained:
		parts = append(parts, "contained")
	case r.Open:
		parts = append(parts, "not contained")
	}
	var got []string
	for _, w := range acquiredWords {
		switch n := r.Acquired[w.kind]; {
		case n == 1:
			got = append(got, w.one)
		case n > 1:
			got = append(got, fmt.Sprintf(w.many, n))
		}
	}
	if n := r.Acquired[capability.DataOut]; n > 0 {
		s := "sent " + SizeText(r.BytesOut) + " out"
		if n > 1 {
			s += fmt.Sprintf(" to %d destinations", n)
		}
		got = append(got, s)
	}
	if len(got) > 0 {
		parts = append(parts, joinAnd(got))
	}
	switch len(r.Detectors) {
	case 0:
		parts = append(parts, "no finding")
	default:
		det := fmt.Sprintf("%d detectors", len(r.Detectors))
		if len(r.Detectors) == 1 {
			det = "1 detector"
		}
		ep := fmt.Sprintf("%d episodes", r.Episodes)
		if r.Episodes == 1 {
			ep = "1 episode"
		}
		parts = append(parts, fmt.Sprintf("%s, up to %s (%s); %s", det, r.Severity, listValues(r.Detectors, 3), ep))
	}
	s := strings.Join(parts, "; ")
	if r.Suppressed > 0 {
		s += fmt.Sprintf("; %d suppressed", r.Suppressed)
	}
	return s
}

// joinAnd joins "a", "b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// assessed says the Assessment judged agent: a kill time is recorded and
// it is the subject.
// holdings is what the ranking reads of the capability sets: every agent
// of Capabilities (one with none acquired too), else Holdings.
func (in RankInput) holdings() map[string]capability.Holding {
	if in.Capabilities == nil {
		return in.Holdings
	}
	out := map[string]capability.Holding{}
	for _, a := range in.Capabilities.Agents() {
		out[a] = in.Capabilities.Holding(a)
	}
	return out
}

// standing is what an Assessment says of agent: the case's, else the
// agent's own; false when none judged it.
func (in RankInput) standing(agent string) (capability.Standing, bool) {
	if in.Assessment != nil {
		if st, ok := in.Assessment.Standing(agent, ""); ok {
			return st, true
		}
	}
	st, ok := in.Standings[agent]
	return st, ok && !st.Kill.IsZero()
}
