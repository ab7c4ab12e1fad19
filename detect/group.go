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

// byAgent says the rule's groups are agents.
func (r *Rule) byAgent() bool { return r.Correlation.GroupBy == "agent" && r.Correlation.Keys == nil }

// finding builds the finding of group g from hits (any order), as
// newFinding cites them.
func (r *Rule) finding(g string, hits []hit, vars map[string]string) Finding {
	common := ""
	if !r.byAgent() {
		common = commonAgent(hits)
	}
	events, start, end := cited(hits)
	return r.citedFinding(g, events, start, end, common, vars)
}

// citedFinding builds the finding of group g of events cited already
// (cited: in time order, each once) over [start, end]: about g itself
// when the rule groups by agent alone, else about common, the agent
// every hit belongs to (commonAgent); the group named in the
// explanation when Keys made it, and kept for a chain that takes the
// rule's findings as its events.
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
