package incident

import (
	"context"
	"slices"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/playbook"
)

// AgentRanking ranks the case's agents (detect.RankAgents) from the run of
// the detectors every reader shares. An agent counts as contained as the
// case's Assessment has it (it is the subject, a kill time is recorded,
// every layer stopped); the ranking decides nothing of it. The
// suppressions on the record are counted, never taken out.
func (w *Workspace) AgentRanking(ctx context.Context) ([]detect.AgentRank, error) {
	res, err := w.scan(ctx)
	if err != nil {
		return nil, err
	}
	return w.RankScan(ctx, res)
}

// RankScan ranks the agents of a run of the detectors (Scan with other
// rules, or findings cut to some agents) as AgentRanking does.
func (w *Workspace) RankScan(ctx context.Context, res detect.Result) ([]detect.AgentRank, error) {
	t, err := w.triage(ctx, res)
	return t.Ranks, err
}

// triage ranks the agents of res and says which suppressions cover which
// finding, reading the suppressions and matching them once.
func (w *Workspace) triage(ctx context.Context, res detect.Result) (Triage, error) {
	t := Triage{Findings: res.Findings}
	s, err := w.State()
	if err != nil {
		return t, err
	}
	in := detect.RankInput{Findings: res.Findings, Capabilities: res.Capabilities}
	if !s.Times[playbook.VarContainedAt].IsZero() {
		cs, err := w.Case(ctx, s)
		if err != nil {
			return t, err
		}
		in.Assessment = &cs.Assessment
	}
	if t.Suppressions, err = w.Suppressions(ctx); err != nil {
		return t, err
	}
	if t.SuppressedBy, err = w.SuppressedBy(ctx, res.Findings, t.Suppressions); err != nil {
		return t, err
	}
	in.Suppressed = map[string]bool{}
	for id := range t.SuppressedBy {
		in.Suppressed[id] = true
	}
	t.Ranks = detect.RankAgents(in)
	return t, nil
}

// Triage is what the Findings pane shows: every finding, the agents
// ranked, and which suppressions cover which finding.
type Triage struct {
	Findings     []detect.Finding
	Ranks        []detect.AgentRank
	Suppressions []Suppression
	// SuppressedBy maps a finding id to the suppressions covering it.
	SuppressedBy map[string][]string
}

// Triage reads the case for the Findings pane, from the run of the
// detectors every reader shares; the findings are the caller's own.
func (h *Handle) Triage(ctx context.Context) (Triage, error) {
	w := h.ws
	res, err := w.scan(ctx)
	if err != nil {
		return Triage{}, err
	}
	t, err := w.triage(ctx, res)
	t.Findings = slices.Clone(res.Findings)
	return t, err
}

// Suppress journals a suppression by the handle's actor.
func (h *Handle) Suppress(ctx context.Context, s detect.Scope, reason string) (Suppression, error) {
	return h.ws.Suppress(ctx, h.actor, s, reason)
}

// AgentRanking ranks the case's agents: see Workspace.AgentRanking.
func (h *Handle) AgentRanking(ctx context.Context) ([]detect.AgentRank, error) {
	return h.ws.AgentRanking(ctx)
}
