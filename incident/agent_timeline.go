package incident

import (
	"context"
	"fmt"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact"
)

// AgentTimeline is what one agent did: its events as a phase-mapped
// timeline, each moment citing event ids, built without a model.
type AgentTimeline struct {
	Moments []Moment
	// Note says what the timeline covers (and what it left out).
	Note string
}

// Moment is one line of an agent's timeline.
type Moment struct {
	Phase  string
	Text   string
	Events []string // never nil
}

// timelineTokens is the packet budget of an agent's timeline: larger than
// an assistant packet's, as nothing leaves the machine.
const timelineTokens = 60000

// AgentTimeline builds the agent's timeline from its events and findings
// with the assistant's offline rules, so that the report and the console's
// offline timeline tell the same story. Nothing is sent and nothing is
// journaled. Its text is redacted with red (nil: placeholders of its own).
func (w *Workspace) AgentTimeline(ctx context.Context, agent string, red *redact.Redactor) (AgentTimeline, error) {
	all, err := w.CachedFindings(ctx)
	if err != nil {
		return AgentTimeline{}, err
	}
	var findings []detect.Finding
	for _, f := range all {
		if f.Agent == agent {
			findings = append(findings, f)
		}
	}
	p, err := assist.BuildPacket(ctx, w.store, assist.Selection{Query: evidence.Term("agent", agent), Findings: findings, Redactor: red}, assist.Budget{Tokens: timelineTokens})
	if err != nil {
		return AgentTimeline{}, fmt.Errorf("timeline of %s: %w", agent, err)
	}
	res, err := assist.Offline(assist.TaskTimeline, p, findings)
	if err != nil {
		return AgentTimeline{}, fmt.Errorf("timeline of %s: %w", agent, err)
	}
	tl := AgentTimeline{Moments: []Moment{}, Note: res.Answer.Notes}
	for _, c := range res.Answer.Claims {
		ids := c.EventIDs
		if ids == nil {
			ids = []string{}
		}
		tl.Moments = append(tl.Moments, Moment{Phase: c.Phase, Text: c.Text, Events: ids})
	}
	return tl, nil
}
