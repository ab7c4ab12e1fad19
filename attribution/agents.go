package attribution

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// AgentSummary is what the evidence says about one agent: the identity its
// session_start records bound it to, when it was active, how much it did and
// how often it was refused.
type AgentSummary struct {
	Agent string `json:"agent"`
	// Model, Run, Sandbox, IP and Container come from the agent's latest
	// session_start, or from its first event when it has none.
	Model     string    `json:"model,omitempty"`
	Run       string    `json:"run,omitempty"`
	Sandbox   string    `json:"sandbox,omitempty"`
	IP        string    `json:"ip,omitempty"`
	Container string    `json:"container,omitempty"`
	Sessions  int       `json:"sessions"`
	First     time.Time `json:"first"`
	Last      time.Time `json:"last"`
	Events    int64     `json:"events"`
	Denied    int64     `json:"denied"`
	// Revealed is the name with every character outside printable ASCII
	// written out (<U+0430 Cyrillic>), and LookAlike the other agents whose
	// names look the same (look-alike letters of other scripts, invisible
	// characters): a name one must not take for another.
	Revealed  string   `json:"revealed,omitempty"`
	LookAlike []string `json:"look_alike,omitempty"`
	// Contested counts the events a binding conflict left between this
	// agent and another (they are in neither's Events).
	Contested int64 `json:"contested,omitempty"`
}

// maxSessionStarts bounds how many session_start records the summary reads.
const maxSessionStarts = 5000

// Agents summarizes every agent in the store, most active first. Counts,
// denials, contested events and first and last seen come from what is
// kept at ingest (evidence.AgentCounts); where the counts do not keep
// them, from facets, the store's spans (evidence.Spanner) or two
// one-event timeline pages per agent: none of it sorts or loads the whole
// incident.
func Agents(ctx context.Context, st evidence.Reader) ([]AgentSummary, error) {
	c := st.Counts()
	names := c.Top("agent", 0)
	if len(names) == 0 {
		return nil, nil
	}
	out := make([]AgentSummary, len(names))
	byName := make(map[string]*AgentSummary, len(names))
	for i, n := range names {
		out[i] = AgentSummary{Agent: n.Value, Events: n.Count}
		byName[n.Value] = &out[i]
	}
	if !c.AgentsKept { // counts an earlier version began: ask the store
		answers, err := evidence.AskAgents(ctx, st, 2*len(names)+2)
		if err != nil {
			return nil, err
		}
		c.Agents, c.AgentsKept = answers.Counts(c.Fields["agent"]), true
	}
	for name, k := range c.Agents {
		if a := byName[name]; a != nil {
			a.Denied, a.Contested = k.Denied, k.Contested
		}
	}
	starts, err := st.Search(ctx, evidence.Request{Query: evidence.Term("kind", evidence.KindSessionStart), Sort: evidence.SortTime, Limit: maxSessionStarts})
	if err != nil {
		return nil, fmt.Errorf("session starts: %w", err)
	}
	for _, ev := range starts.Events {
		if a := byName[ev.Agent]; a != nil {
			a.Sessions++
			identify(a, ev)
		}
	}
	// first and last seen: from the counts where they know both, else
	// one request where the store aggregates them (evidence.Spanner);
	// pages for the agents it does not give, and for the first event of
	// an agent with no session record, whose identity it carries
	spans, err := agentSpans(ctx, st, c, out)
	if err != nil {
		return nil, err
	}
	for i := range out {
		a := &out[i]
		if sp, ok := spans[a.Agent]; ok && a.Sessions > 0 {
			a.First, a.Last = sp.First, sp.Last
			continue
		}
		q := evidence.Term("agent", a.Agent)
		first, err := st.Page(ctx, evidence.PageRequest{Query: q, Limit: 1})
		if err != nil {
			return nil, fmt.Errorf("agent %s: %w", a.Agent, err)
		}
		last, err := st.Page(ctx, evidence.PageRequest{Query: q, Limit: 1, Backward: true})
		if err != nil {
			return nil, fmt.Errorf("agent %s: %w", a.Agent, err)
		}
		if len(first.Events) > 0 {
			a.First = first.Events[0].Time
			if a.Sessions == 0 {
				identify(a, first.Events[0])
			}
		}
		if len(last.Events) > 0 {
			a.Last = last.Events[0].Time
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Events != out[j].Events {
			return out[i].Events > out[j].Events
		}
		return out[i].Agent < out[j].Agent
	})
	all := make([]string, len(out))
	for i := range out {
		all[i] = out[i].Agent
	}
	alike := LookAlikes(all)
	for i := range out {
		if !Plain(out[i].Agent) {
			out[i].Revealed = Revealed(out[i].Agent)
		}
		out[i].LookAlike = alike[out[i].Agent]
	}
	return out, nil
}

// agentSpans is the first and last time of the agents in out: the
// counts' where they know them, and when they do not know every agent's
// (a bound replaced), the store's aggregation if it has one.
func agentSpans(ctx context.Context, st evidence.Reader, c evidence.Counts, out []AgentSummary) (map[string]evidence.ValueSpan, error) {
	spans := make(map[string]evidence.ValueSpan, len(out))
	for _, a := range out {
		if k := c.Agents[a.Agent]; k != nil {
			if sp, ok := k.Span(); ok {
				spans[a.Agent] = sp
			}
		}
	}
	sp, ok := st.(evidence.Spanner)
	if len(spans) == len(out) || !ok {
		return spans, nil
	}
	spans, err := sp.Spans(ctx, "agent")
	if err != nil {
		return nil, fmt.Errorf("agents' first and last events: %w", err)
	}
	return spans, nil
}

// identify takes the identity fields an event carries; a later session
// overrides an earlier one field by field.
func identify(a *AgentSummary, ev evidence.Event) {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&a.Model, ev.Model)
	set(&a.Run, ev.Run)
	set(&a.Sandbox, ev.Sandbox)
	set(&a.IP, ev.SrcIP)
	set(&a.Container, ev.Container)
}

// Unattributed is how many events no agent is attributed to.
func Unattributed(c evidence.Counts) int64 {
	return c.Fields["agent"][""]
}
