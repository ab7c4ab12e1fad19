package detect

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Finding is a detector's verdict on one agent over a span of time, with
// the evidence that supports it: an episode of one or more matches of the
// detector's rule (see Episodes).
type Finding struct {
	// ID is stable across runs and as the episode grows: a hash of
	// detector, agent and first event. Should two findings still share
	// that key (a rule grouped by another field than agent), each but the
	// first is told apart by its ordinal among them, ordered by start,
	// end, then its events: see uniqueIDs.
	ID       string `json:"id"`
	Detector string `json:"detector"`
	Title    string `json:"title"`
	// Agent is who the finding is about; empty when no agent could be
	// named (e.g. a credential used from outside every sandbox).
	Agent    string    `json:"agent"`
	Severity string    `json:"severity"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	// Events are every evidence id of the episode, oldest match first;
	// views show the first few and a count (Evidence).
	Events      []string `json:"events"`
	Explanation string   `json:"explanation"`
	Phase       string   `json:"phase"`
	// Matches counts the rule's matches the episode gathers (1: one).
	Matches int `json:"matches"`
	// Values are the distinct values that drove it (hosts, credentials,
	// paths, tools), in first-seen order, when the rule has such values.
	Values []string `json:"values,omitempty"`
	// Tags are the rule's (ATT&CK tactics and techniques).
	Tags []string `json:"tags,omitempty"`
	// EventCount and ValueCount are set on a copy that lists fewer events
	// or values than the finding has (a published message names the
	// first and last events of a long episode): how many it has. Zero
	// when Events and Values are whole, as the engine gives them.
	EventCount int `json:"event_count,omitempty"`
	ValueCount int `json:"value_count,omitempty"`

	group string // the correlation's group, for a chain (see Step.Rule)
}

// hit is an event as correlations keep it: enough to place and cite it.
type hit struct {
	t     time.Time
	id    string
	agent string
}

// newFinding builds a finding of rule r about agent from hits (any order)
// and the variables of its explanation; the common variables are added.
func (r *Rule) newFinding(agent string, hits []hit, vars map[string]string) Finding {
	f := r.blankFinding(agent)
	f.Events, f.Start, f.End = cited(hits)
	return r.finish(f, vars)
}

// cited is what a finding of hits (any order) cites: their events in
// time order (stable), each once, and their span.
func cited(hits []hit) (events []string, start, end time.Time) {
	byTime := func(a, b hit) int { return a.t.Compare(b.t) }
	if !slices.IsSortedFunc(hits, byTime) {
		slices.SortStableFunc(hits, byTime)
	}
	var f Finding
	seen := make(map[string]bool, len(hits))
	for _, h := range hits {
		if seen[h.id] {
			continue
		}
		seen[h.id] = true
		f.cite(h)
	}
	return f.Events, f.Start, f.End
}

// sortedFinding is newFinding of hits already in its order (by time,
// stable) and each of another event: nothing to sort or drop.
func (r *Rule) sortedFinding(agent string, hits []hit, vars map[string]string) Finding {
	f := r.blankFinding(agent)
	f.Events = make([]string, 0, len(hits))
	for _, h := range hits {
		f.cite(h)
	}
	return r.finish(f, vars)
}

func (r *Rule) blankFinding(agent string) Finding {
	return Finding{Detector: r.ID, Title: r.Title, Agent: agent, Severity: r.Severity, Phase: r.Phase, Matches: 1,
		Tags: slices.Clip(r.Tags)}
}

// cite adds h's event to f's, its time to f's span.
func (f *Finding) cite(h hit) {
	widen(&f.Start, &f.End, h.t)
	f.Events = append(f.Events, h.id)
}

// widen widens the span [start, end] to t.
func widen(start, end *time.Time, t time.Time) {
	if start.IsZero() || t.Before(*start) {
		*start = t
	}
	if t.After(*end) {
		*end = t
	}
}

// finish renders f's explanation with vars over the rule's own and gives
// it its id.
func (r *Rule) finish(f Finding, vars map[string]string) Finding {
	all := map[string]string{
		"count": strconv.Itoa(len(f.Events)), "window": fmtDuration(r.Correlation.Window),
		"span": fmtDuration(f.End.Sub(f.Start)), "start": f.Start.Format(time.TimeOnly),
		"end": f.End.Format(time.TimeOnly), "group": f.Agent, "agent": orNobody(f.Agent), "rule": r.ID,
	}
	for k, v := range vars {
		all[k] = v
	}
	f.Explanation = render(r.Explain, all)
	f.ID = findingID(f, 0)
	return f
}

// findingID is the id of f when it is the n-th (from 0) of the findings
// sharing its detector, agent and first event. The first keeps the plain
// hash of the three, so ids given before ordinals existed still hold.
func findingID(f Finding, n int) string {
	first := ""
	if len(f.Events) > 0 {
		first = f.Events[0]
	}
	key := f.Detector + "\x00" + f.Agent + "\x00" + first
	if n > 0 {
		key += "\x00" + strconv.Itoa(n)
	}
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

// uniqueIDs gives each finding that shares its detector, agent and first
// event with an earlier one its ordinal among them. The order is the
// findings' own (start, end, events), not the order a correlation
// emitted them in, so the same evidence gives the same ids on every run.
func uniqueIDs(fs []Finding) {
	byID := map[string][]int{}
	var shared []string
	for i := range fs {
		fs[i].ID = findingID(fs[i], 0)
		if len(byID[fs[i].ID]) == 1 {
			shared = append(shared, fs[i].ID)
		}
		byID[fs[i].ID] = append(byID[fs[i].ID], i)
	}
	for _, id := range shared {
		idx := byID[id]
		slices.SortStableFunc(idx, func(a, b int) int { return compareFindings(&fs[a], &fs[b]) })
		for n, i := range idx[1:] {
			fs[i].ID = findingID(fs[i], n+1)
		}
	}
}

// compareFindings orders findings of one key: by start, end, then events.
func compareFindings(a, b *Finding) int {
	if c := a.Start.Compare(b.Start); c != 0 {
		return c
	}
	if c := a.End.Compare(b.End); c != 0 {
		return c
	}
	if c := cmp.Compare(len(a.Events), len(b.Events)); c != 0 {
		return c
	}
	return slices.Compare(a.Events, b.Events)
}

func orNobody(agent string) string {
	if agent == "" {
		return "(no agent)"
	}
	return agent
}

// commonAgent is the agent every hit belongs to, or "".
func commonAgent(hits []hit) string {
	a := ""
	for i, h := range hits {
		if i == 0 {
			a = h.agent
		} else if h.agent != a {
			return ""
		}
	}
	return a
}

// fmtDuration writes 10m rather than 10m0s, and rounds to the second (to
// the millisecond below one second).
func fmtDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	s := d.Round(time.Second).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// listValues renders up to n values, saying how many were left out.
func listValues(vals []string, n int) string {
	if len(vals) <= n {
		return strings.Join(vals, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(vals[:n], ", "), len(vals)-n)
}

// Sort orders findings grouped per agent (agents with the most severe
// finding first, then by name, the unnamed last), each agent's by severity
// (most severe first), then start time, then detector.
func Sort(fs []Finding) {
	top := map[string]int{}
	for _, f := range fs {
		if r := SeverityRank(f.Severity); r > top[f.Agent] {
			top[f.Agent] = r
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Agent != b.Agent {
			if (a.Agent == "") != (b.Agent == "") {
				return b.Agent == ""
			}
			if top[a.Agent] != top[b.Agent] {
				return top[a.Agent] > top[b.Agent]
			}
			return a.Agent < b.Agent
		}
		if ra, rb := SeverityRank(a.Severity), SeverityRank(b.Severity); ra != rb {
			return ra > rb
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return a.Detector < b.Detector
	})
}

// SortRanked orders findings grouped per agent in the order of ranks
// (RankAgents), agents it does not name last, each agent's as Sort does.
func SortRanked(fs []Finding, ranks []AgentRank) {
	pos := map[string]int{}
	for _, r := range ranks {
		pos[r.Agent] = r.Rank
	}
	at := func(a string) int {
		if p, ok := pos[a]; ok {
			return p
		}
		return len(ranks) + 1
	}
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Agent != b.Agent {
			if pa, pb := at(a.Agent), at(b.Agent); pa != pb {
				return pa < pb
			}
			return a.Agent < b.Agent
		}
		if ra, rb := SeverityRank(a.Severity), SeverityRank(b.Severity); ra != rb {
			return ra > rb
		}
		if !a.Start.Equal(b.Start) {
			return a.Start.Before(b.Start)
		}
		return a.Detector < b.Detector
	})
}

// AgentFindings is one agent's findings.
type AgentFindings struct {
	Agent    string
	Findings []Finding
}

// Group splits sorted findings per agent, keeping their order.
func Group(fs []Finding) []AgentFindings {
	var out []AgentFindings
	for _, f := range fs {
		if len(out) == 0 || out[len(out)-1].Agent != f.Agent {
			out = append(out, AgentFindings{Agent: f.Agent})
		}
		out[len(out)-1].Findings = append(out[len(out)-1].Findings, f)
	}
	return out
}
