package detect

import (
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// groupKey is an event's group: Keys' when the correlation has them,
// else the value of the GroupBy field g.
func (r *Rule) groupKey(g evidence.Field, step int, ev *evidence.Event) string {
	if r.Correlation.Keys != nil {
		return r.Correlation.Keys.Key(step, ev)
	}
	return g.Key(ev)
}

// groupAgent is who a finding of group g is about: the group itself when
// the rule groups by agent alone, else the agent every hit belongs to.
func (r *Rule) groupAgent(g string, hits []hit) string {
	if r.byAgent() {
		return g
	}
	return commonAgent(hits)
}

// byAgent says the rule's groups are agents.
func (r *Rule) byAgent() bool { return r.Correlation.GroupBy == "agent" && r.Correlation.Keys == nil }

// finding builds the finding of group g: about groupAgent's agent, the
// group named in the explanation when Keys made it, and kept for a
// chain that takes the rule's findings as its events.
func (r *Rule) finding(g string, hits []hit, vars map[string]string) Finding {
	if r.Correlation.Keys != nil {
		vars["group"] = g
	}
	f := r.newFinding(r.groupAgent(g, hits), hits, vars)
	f.group = g
	return f
}

// citedFinding is finding of hits cited already as newFinding cites them:
// their ids, in time order and each once, their span and their
// commonAgent.
func (r *Rule) citedFinding(g string, events []string, start, end time.Time, common string, vars map[string]string) Finding {
	if r.Correlation.Keys != nil {
		vars["group"] = g
	}
	agent := common
	if r.byAgent() {
		agent = g
	}
	f := r.blankFinding(agent)
	f.Events, f.Start, f.End = events, start, end
	f = r.finish(f, vars)
	f.group = g
	return f
}
