package incident

import (
	"context"
	"sort"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// RunSession is one agent session as the ledger's session records place
// it in an evaluation run (the `run` field of ledger v1).
type RunSession struct {
	Run     string    `json:"run"`
	Agent   string    `json:"agent"`
	Session string    `json:"session"`
	Start   time.Time `json:"start"`
	// End is the session's session_end, zero when none was recorded.
	End time.Time `json:"end,omitzero"`
}

// maxRunSessions bounds the session records read: sessions are few next
// to the events they bind.
const maxRunSessions = 100000

// RunSessions are the sessions the ledger records, oldest first, with the
// run each belongs to ("" for a session_start without one). Only ledger
// records carry a run: a proxy's or a sensor's record belongs to a run
// through the agent it is attributed to and when it happened.
func (w *Workspace) RunSessions(ctx context.Context) ([]RunSession, error) {
	hits, err := w.store.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("source", evidence.SourceLedger),
		evidence.Terms("kind", "session_start", "session_end")), Sort: evidence.SortTime, Limit: maxRunSessions})
	if err != nil {
		return nil, err
	}
	var out []RunSession
	open := map[string]int{}
	for _, ev := range hits.Events {
		key := ev.Agent + "\x00" + ev.Session
		switch ev.Kind {
		case "session_start":
			open[key] = len(out)
			out = append(out, RunSession{Run: ev.Run, Agent: ev.Agent, Session: ev.Session, Start: ev.Time})
		case "session_end":
			if i, ok := open[key]; ok && out[i].End.IsZero() {
				out[i].End = ev.Time
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out, nil
}
