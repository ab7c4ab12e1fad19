package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// ErrNoRun marks a run id no session record of the workspace carries.
var ErrNoRun = errors.New("no such run")

// window is a stretch of an agent's time that belongs to the run scored.
type window struct{ from, until time.Time } // until zero: open

// runScope is the part of a workspace one ledger run id holds. Only
// ledger records carry a run: another source's record is the run's when
// the agent it is attributed to was in one of the run's sessions then, or
// had not yet started a session of another run (what a sandbox does after
// its session ended is still that session's).
type runScope struct {
	id      string
	agents  []string
	windows map[string][]window
	from    time.Time
	until   time.Time // zero: open
}

// newRunScope places a run's sessions; ErrNoRun names the runs there are
// when none is the one asked for.
func newRunScope(sessions []incident.RunSession, id string) (*runScope, error) {
	sc := &runScope{id: id, windows: map[string][]window{}}
	open := false
	for i, s := range sessions {
		if s.Run != id {
			continue
		}
		w := window{from: s.Start}
		for _, next := range sessions[i+1:] {
			if next.Agent == s.Agent && next.Run != id && next.Start.After(s.Start) {
				w.until = next.Start
				break
			}
		}
		if !slices.Contains(sc.agents, s.Agent) {
			sc.agents = append(sc.agents, s.Agent)
		}
		sc.windows[s.Agent] = append(sc.windows[s.Agent], w)
		if sc.from.IsZero() || w.from.Before(sc.from) {
			sc.from = w.from
		}
		if w.until.IsZero() {
			open = true
		} else if w.until.After(sc.until) {
			sc.until = w.until
		}
	}
	if len(sc.agents) == 0 {
		var runs []string
		for _, s := range sessions {
			if s.Run != "" && !slices.Contains(runs, s.Run) {
				runs = append(runs, s.Run)
			}
		}
		if len(runs) == 0 {
			return nil, fmt.Errorf("%w: no session record carries a run id", ErrNoRun)
		}
		return nil, fmt.Errorf("%w: no session record carries run %q (the runs here: %s)", ErrNoRun, id, strings.Join(runs, ", "))
	}
	if open {
		sc.until = time.Time{}
	}
	slices.Sort(sc.agents)
	return sc, nil
}

// at says whether an agent's record at t is the run's.
func (sc *runScope) at(agent string, t time.Time) bool {
	if sc == nil {
		return true
	}
	for _, w := range sc.windows[agent] {
		if !t.Before(w.from.Add(-skewSlack)) && (w.until.IsZero() || t.Before(w.until)) {
			return true
		}
	}
	return false
}

// span is the query of an agent's records at (the run's stretches of
// its time), as the index answers it; nothing for an agent not in it.
func (sc *runScope) span(agent string) evidence.Query {
	var qs []evidence.Query
	for _, w := range sc.windows[agent] {
		qs = append(qs, evidence.TimeRange(w.from.Add(-skewSlack), w.until))
	}
	if len(qs) == 0 {
		return evidence.None()
	}
	return evidence.Or(qs...)
}

// holds says whether an event is the run's: a ledger record by its run
// field, any other by its agent and time.
func (sc *runScope) holds(ev evidence.Event) bool {
	if sc == nil {
		return true
	}
	if ev.Source == evidence.SourceLedger && ev.Run != "" {
		return ev.Run == sc.id
	}
	return sc.at(ev.Agent, ev.Time)
}

// sourcesOf counts, per source and per format, the events in the run's
// span, so that "that source is not in the incident" is said of the run.
func sourcesOf(ctx context.Context, ws *incident.Workspace, sc *runScope) (evidence.Counts, error) {
	c := evidence.Counts{Fields: map[string]map[string]int64{}}
	for _, field := range []string{"source", "format"} {
		counts, err := ws.Facet(ctx, evidence.All(), sc.from.Add(-skewSlack), sc.until, field, 100)
		if err != nil {
			return c, err
		}
		c.Fields[field] = map[string]int64{}
		for _, v := range counts {
			c.Fields[field][v.Value] = v.Count
		}
	}
	return c, nil
}

// RunKills is the kills given (the harness's, Workspace.HarnessKills)
// that fall in the run's stretches of each agent's time: with a run
// scored, a kill of another run, or of an agent the run does not hold,
// is not named as this run's. "" is the whole case: all of them.
func RunKills(ctx context.Context, ws *incident.Workspace, run string, kills map[string]time.Time) (map[string]time.Time, error) {
	if run == "" || len(kills) == 0 {
		return kills, nil
	}
	sessions, err := ws.RunSessions(ctx)
	if err != nil {
		return nil, err
	}
	sc, err := newRunScope(sessions, run)
	if err != nil {
		return nil, err
	}
	out := map[string]time.Time{}
	for agent, t := range kills {
		if sc.at(agent, t) {
			out[agent] = t
		}
	}
	return out, nil
}
