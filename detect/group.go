package detect

import "github.com/cordon-ir/cordon/evidence"

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
	if r.Correlation.GroupBy == "agent" && r.Correlation.Keys == nil {
		return g
	}
	return commonAgent(hits)
}

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
