package incident

import (
	"context"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/playbook"
)

// AgentRanking ranks the case's agents (detect.RankAgents) from the run of
// the detectors every reader shares: the containment time the journal
// records counts for the case's subject (the agents a responder named, or
// the agent of the most severe finding), and the suppressions on the
// record are counted, never taken out.
func (w *Workspace) AgentRanking(ctx context.Context) ([]detect.AgentRank, error) {
	res, err := w.scan(ctx)
	if err != nil {
		return nil, err
	}
	return w.RankScan(res)
}

// RankScan ranks the agents of a run of the detectors (Scan with other
// rules, or findings cut to some agents) as AgentRanking does.
func (w *Workspace) RankScan(res detect.Result) ([]detect.AgentRank, error) {
	s, err := w.State()
	if err != nil {
		return nil, err
	}
	return rankAgents(res, s), nil
}

func rankAgents(res detect.Result, s CaseState) []detect.AgentRank {
	in := detect.RankInput{Findings: res.Findings, Capabilities: res.Capabilities}
	if at := s.Times[playbook.VarContainedAt]; !at.IsZero() {
		subject := s.Subject
		if len(subject) == 0 {
			subject = DefaultSubject(res.Findings)
		}
		in.ContainedAt = map[string]time.Time{}
		for _, a := range subject {
			in.ContainedAt[a] = at
		}
	}
	return detect.RankAgents(in)
}

// AgentRanking ranks the case's agents: see Workspace.AgentRanking.
func (h *Handle) AgentRanking(ctx context.Context) ([]detect.AgentRank, error) {
	return h.ws.AgentRanking(ctx)
}
