package agents

import (
	"context"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/report"
)

// Case is what the pane reads of the case, through its handle: the
// evidence and the agents it names, the capability sets (from the same
// run of the detectors as the findings) and the case, for its Assessment.
type Case interface {
	report.Reader
	Agents(ctx context.Context) ([]attribution.AgentSummary, error)
	Capabilities(ctx context.Context) (*capability.Set, error)
	State() (incident.CaseState, error)
	Case(ctx context.Context, s incident.CaseState) (incident.Case, error)
}

// session is one session of the profiled agent, as its records say.
type session struct {
	ID, Sandbox, IP string
	Start, End      time.Time
	Ended           string // killed, completed, … ("" while open)
	Shared          string // the IP held by another agent in its interval, or after it
	StartID, EndID  string
}

// profile is one agent's sessions and capabilities.
type profile struct {
	agent     string
	sessions  []session
	caps      []capability.Capability
	checks    map[int]capability.Verdict // index in caps -> the case Assessment's verdict
	contained time.Time
	capsErr   error
	// tree is the agent's attribution and capability graph as text, the
	// one the report draws (report.AgentGraph).
	tree []string
}

type profileMsg struct {
	seq int
	p   profile
	err error
}

// maxProfileSessions bounds the session records a profile reads.
const maxProfileSessions = 2000

// loadProfile reads an agent's sessions, every session holding one of its
// IPs (to mark an IP shared in time or reused), and its capabilities.
func loadProfile(ctx context.Context, cw Case, agent string) (profile, error) {
	p := profile{agent: agent, checks: map[int]capability.Verdict{}}
	hits, err := cw.Search(ctx, evidence.Request{Query: evidence.Terms("kind", evidence.KindSessionStart, evidence.KindSessionEnd), Sort: evidence.SortTime, Limit: maxProfileSessions})
	if err != nil {
		return p, fmt.Errorf("sessions: %w", err)
	}
	type key struct{ agent, session string }
	all := map[key]*session{}
	var order []key
	owner := map[*session]string{}
	for _, ev := range hits.Events {
		k := key{ev.Agent, ev.Session}
		s := all[k]
		if s == nil {
			s = &session{ID: ev.Session}
			all[k] = s
			order = append(order, k)
			owner[s] = ev.Agent
		}
		switch ev.Kind {
		case evidence.KindSessionStart:
			s.Sandbox, s.IP, s.Start, s.StartID = ev.Sandbox, ev.SrcIP, ev.Time, ev.ID
		case evidence.KindSessionEnd:
			s.End, s.Ended, s.EndID = ev.Time, ev.Status, ev.ID
			if s.Ended == "" {
				s.Ended = "ended"
			}
		}
	}
	for _, k := range order {
		if k.agent != agent {
			continue
		}
		s := *all[k]
		for _, ok := range order {
			o := all[ok]
			if ok.agent == agent || o.IP == "" || o.IP != s.IP {
				continue
			}
			switch {
			case overlaps(s, *o):
				s.Shared = fmt.Sprintf("IP shared with %s (%s)", ok.agent, o.ID)
			case !s.End.IsZero() && !o.Start.Before(s.End) && s.Shared == "":
				s.Shared = fmt.Sprintf("IP reused by %s from %s", ok.agent, o.Start.UTC().Format(time.TimeOnly))
			}
		}
		p.sessions = append(p.sessions, s)
	}
	sort.SliceStable(p.sessions, func(i, j int) bool { return p.sessions[i].Start.Before(p.sessions[j].Start) })
	caps, err := cw.Capabilities(ctx)
	if err != nil {
		p.capsErr = err
		return p, nil
	}
	p.caps = caps.For(agent)
	if g, err := report.AgentGraph(ctx, cw, agent, p.caps); err == nil {
		if t := strings.TrimRight(g.Tree(), "\n"); t != "" {
			p.tree = strings.Split(t, "\n")
		}
	}
	// the verdicts are the case's Assessment's: the subject's, at the kill
	// time the journal records; the pane decides nothing
	if state, err := cw.State(); err == nil {
		if cs, err := cw.Case(ctx, state); err == nil {
			p.contained = cs.ContainedAt
			for i := range p.caps {
				if v, ok := cs.Assessment.Of(&p.caps[i]); ok {
					p.checks[i] = v
				}
			}
		}
	}
	return p, nil
}

func overlaps(a, b session) bool {
	aEnd, bEnd := a.End, b.End
	far := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if aEnd.IsZero() {
		aEnd = far
	}
	if bEnd.IsZero() {
		bEnd = far
	}
	return a.Start.Before(bEnd) && b.Start.Before(aEnd)
}

// openProfile starts reading the selected agent's profile.
func (m *Model) openProfile(agent string) tea.Cmd {
	m.seq++
	m.profileFor, m.pcur, m.ptop = agent, 0, 0
	ctx, cw, seq := m.com.Ctx, m.cs, m.seq
	return m.com.Cmd(func() tea.Msg {
		p, err := loadProfile(ctx, cw, agent)
		return profileMsg{seq: seq, p: p, err: err}
	})
}
