package incident

import (
	"context"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/playbook"
)

// Case is what the playbook's templates are filled from: the agents the
// incident is about, what their sessions bound them to, and the times the
// responders recorded.
type Case struct {
	// Subject are the agents under investigation, in the order named.
	Subject []string
	// SubjectFrom says where Subject came from: "journal" (a responder named
	// them), "findings" (the first agent of the ranking by concern) or ""
	// (none).
	SubjectFrom string
	// Sessions are the subject's session_start records, oldest first.
	Sessions []evidence.Event
	// Containers are the container ids attribution tied to the subject,
	// as the sensors wrote them (often the full form of the ledger's).
	Containers []string
	// First and Last are the subject's first and last events.
	First, Last time.Time
	// ContainedAt is when the subject was stopped, as recorded by the step
	// that sets it (zero: not yet).
	ContainedAt time.Time
	// Capabilities are the subject's capability sets, granted and
	// acquired (Workspace.Case fills them).
	Capabilities []capability.Capability
	// HarnessKill is when the harness's ledger had killed every agent of
	// the subject (the latest of their kills, Workspace.HarnessKills); zero
	// when it did not kill each. A responder may record it as ContainedAt;
	// nothing takes it as that by itself.
	HarnessKill time.Time
	// Assessment is the one answer to "is every capability stopped?" for
	// the subject at ContainedAt (Workspace.Case fills it).
	Assessment capability.Assessment
}

// Vars are the playbook's template variables for the case: each may hold
// several values (an agent with two sessions has two IPs), none when the
// evidence has none.
func (c Case) Vars() playbook.Vars {
	v := playbook.Vars{}
	add := func(name, value string) {
		if value != "" && !slices.Contains(v[name], value) {
			v[name] = append(v[name], value)
		}
	}
	for _, a := range c.Subject {
		add(playbook.VarAgent, a)
	}
	for _, s := range c.Sessions {
		add(playbook.VarSession, s.Session)
		add(playbook.VarRun, s.Run)
		add(playbook.VarModel, s.Model)
		add(playbook.VarSandbox, s.Sandbox)
		add(playbook.VarIP, s.SrcIP)
		add(playbook.VarContainer, s.Container)
		add(playbook.VarPod, s.Pod)
		for _, cr := range s.Credential {
			add(playbook.VarCredential, cr)
		}
	}
	for _, id := range c.Containers {
		add(playbook.VarContainer, id)
	}
	if !c.First.IsZero() {
		v.SetTime(playbook.VarSince, c.First)
		v.SetTime(playbook.VarUntil, c.Last)
	}
	if !c.ContainedAt.IsZero() {
		v.SetTime(playbook.VarContainedAt, c.ContainedAt)
	}
	return v
}

// ActionVars are the variables an action's command is filled from: Vars,
// and the credentials the subject acquired, so that revoking "every
// credential" revokes a borrowed one too. Checks keep Vars: an acquired
// credential is judged against its own stop time (CheckStep).
func (c Case) ActionVars() playbook.Vars {
	v := c.Vars()
	for _, cp := range c.Capabilities {
		if cp.Kind == capability.Credential && cp.Origin == capability.Acquired && cp.Owner != "" && !slices.Contains(v[playbook.VarCredential], cp.Value) {
			v[playbook.VarCredential] = append(v[playbook.VarCredential], cp.Value)
		}
	}
	return v
}

// Provenance says where each value of the action variables came from: the
// session record that granted it, or how it was acquired. The
// confirmation shows it, so that a value the evidence put there is seen
// as such.
func (c Case) Provenance() map[string]string {
	out := map[string]string{}
	// An agent with several session records may have one the evidence
	// forged (a ledger line the agent wrote): say which record, where.
	perAgent := map[string]int{}
	for _, s := range c.Sessions {
		perAgent[s.Agent]++
	}
	for _, s := range c.Sessions {
		from := fmt.Sprintf("session_start of %s (%s, event %s", s.Session, s.Agent, s.ID)
		if s.Origin != "" {
			from += ", " + s.Origin
		}
		if n := perAgent[s.Agent]; n > 1 {
			from += fmt.Sprintf("; one of %d session_start records of %s", n, s.Agent)
		}
		from += ")"
		for _, v := range append([]string{s.Session, s.Run, s.Model, s.Sandbox, s.SrcIP, s.Container, s.Pod}, s.Credential...) {
			if v != "" && out[v] == "" {
				out[v] = from
			}
		}
	}
	for _, id := range c.Containers {
		if out[id] == "" {
			out[id] = "attribution: sensor events tied to the subject by this container"
		}
	}
	for _, cp := range c.Capabilities {
		if cp.Kind == capability.Credential && cp.Origin == capability.Acquired && cp.Owner != "" {
			out[cp.Value] = fmt.Sprintf("acquired from %s's session: %s (events %s)", cp.Owner, cp.How, strings.Join(cp.Acquired[:min(len(cp.Acquired), 3)], ", "))
		}
	}
	return out
}

// MaxSubjectSessions bounds the session records read for one agent.
const MaxSubjectSessions = 1000

// LoadCase fills a case for the subject agents from the store.
func LoadCase(ctx context.Context, st evidence.Store, subject []string, containedAt time.Time) (Case, error) {
	c := Case{Subject: subject, ContainedAt: containedAt}
	for _, a := range subject {
		hits, err := st.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("agent", a), evidence.Term("kind", evidence.KindSessionStart)), Limit: MaxSubjectSessions})
		if err != nil {
			return c, fmt.Errorf("sessions of %s: %w", a, err)
		}
		c.Sessions = append(c.Sessions, hits.Events...)
		// Ledgers often name a container by its short id; the sensors
		// write the full one. Attribution matched them: take those too.
		full, err := st.Facet(ctx, evidence.And(evidence.Term("agent", a), evidence.Term("attributed_via", "container")), time.Time{}, time.Time{}, "container", MaxSubjectSessions)
		if err != nil {
			return c, fmt.Errorf("containers of %s: %w", a, err)
		}
		for _, f := range full {
			c.Containers = append(c.Containers, f.Value)
		}
		for _, sort := range []string{evidence.SortTime, evidence.SortTimeDesc} {
			h, err := st.Search(ctx, evidence.Request{Query: evidence.Term("agent", a), Sort: sort, Limit: 1})
			if err != nil {
				return c, fmt.Errorf("events of %s: %w", a, err)
			}
			if len(h.Events) == 0 {
				continue
			}
			t := h.Events[0].Time
			if c.First.IsZero() || t.Before(c.First) {
				c.First = t
			}
			if t.After(c.Last) {
				c.Last = t
			}
		}
	}
	sort.SliceStable(c.Sessions, func(i, j int) bool { return c.Sessions[i].Time.Before(c.Sessions[j].Time) })
	return c, nil
}

// DefaultSubject is the agent a case is about when no responder named
// one: the first agent with a finding in the ranking (detect.RankAgents,
// with no containment judged yet: it is this choice that names whose
// containment to judge), or none.
func DefaultSubject(findings []detect.Finding, caps *capability.Set) []string {
	with := map[string]bool{}
	for _, f := range findings {
		with[f.Agent] = f.Agent != ""
	}
	for _, r := range detect.RankAgents(detect.RankInput{Findings: findings, Capabilities: caps}) {
		if with[r.Agent] {
			return []string{r.Agent}
		}
	}
	return nil
}
