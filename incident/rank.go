package incident

import (
	"context"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/playbook"
)

// AgentRanking ranks the case's agents (detect.RankAgents) from the run of
// the detectors every reader shares. An agent counts as contained as the
// report has it: it is the case's subject, a containment time is
// recorded, and every kill-switch layer's check verifies. The
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
	s, err := w.State()
	if err != nil {
		return nil, err
	}
	in := detect.RankInput{Findings: res.Findings, Capabilities: res.Capabilities}
	if in.Contained, err = w.containedAgents(ctx, s, res.Capabilities); err != nil {
		return nil, err
	}
	return detect.RankAgents(in), nil
}

// containedAgents are the subject agents the kill-switch checks verify
// stopped: none until a containment time is recorded.
func (w *Workspace) containedAgents(ctx context.Context, s CaseState, caps *detect.Capabilities) (map[string]bool, error) {
	if s.Times[playbook.VarContainedAt].IsZero() {
		return nil, nil
	}
	cs, err := w.Case(ctx, s)
	if err != nil {
		return nil, err
	}
	pb, err := w.Playbook()
	if err != nil {
		return nil, err
	}
	layers := pb.LayerSteps()
	if len(layers) == 0 {
		return nil, nil
	}
	for _, ref := range layers {
		r, err := CheckStep(ctx, w.Store, ref.Step, cs, caps, time.Now())
		if err != nil {
			return nil, err
		}
		if r.Status != CheckVerified {
			return nil, nil
		}
	}
	out := map[string]bool{}
	for _, a := range cs.Subject {
		out[a] = true
	}
	return out, nil
}

// AgentRanking ranks the case's agents: see Workspace.AgentRanking.
func (h *Handle) AgentRanking(ctx context.Context) ([]detect.AgentRank, error) {
	return h.ws.AgentRanking(ctx)
}
