package report

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
)

// Agent answers the four questions about one subject agent.
type Agent struct {
	Agent string `json:"agent"`
	// Sessions are the ids of the agent's session_start events: the
	// evidence for Knew and Could.
	Sessions []string     `json:"sessions"`
	Knew     Knew         `json:"knew"`
	Could    Could        `json:"could"`
	Did      Timeline     `json:"did"`
	Why      []FindingWhy `json:"why"`
}

// Knew is what the agent knew: its objectives, model, run, the
// context packets it was given and the credentials it was issued.
type Knew struct {
	Objectives   []string        `json:"objectives"`
	Models       []string        `json:"models"`
	Runs         []string        `json:"runs"`
	Prompts      []PromptRef     `json:"prompts"`
	PromptsTotal int             `json:"prompts_total"`
	Credentials  []CredentialRef `json:"credentials"`
	// Secrets are what it read that it was not handed: credential files,
	// secret stores, environment dumps, metadata endpoints (cred_access
	// events from the ledger and the sensors), one line per thing read.
	Secrets []SecretRead `json:"secrets"`
}

// SecretRead is one credential-bearing thing the agent read.
type SecretRead struct {
	What   string    `json:"what"`
	First  time.Time `json:"first"`
	Count  int       `json:"count"`
	Events []string  `json:"events"`
}

// PromptRef is one ledger prompt record: the digest of the context packet.
type PromptRef struct {
	Event  string    `json:"event"`
	Time   time.Time `json:"time"`
	Digest string    `json:"digest"`
	Tokens int       `json:"tokens,omitempty"`
}

// CredentialRef is a credential a session_start issued.
type CredentialRef struct {
	ID      string `json:"id"`
	Kind    string `json:"kind,omitempty"`
	Scope   string `json:"scope,omitempty"`
	Session string `json:"session,omitempty"`
	Event   string `json:"event"`
}

// Could is what the agent could do, as its sessions granted it;
// credential scopes are in Knew.Credentials.
type Could struct {
	Tools  []string `json:"tools"`
	Egress []string `json:"egress"`
}

// Timeline is what the agent did: the offline, phase-mapped timeline
// of its events, each line citing event ids.
type Timeline struct {
	Lines []TimelineLine `json:"lines"`
	Note  string         `json:"note"`
}

// TimelineLine is one moment of the timeline.
type TimelineLine struct {
	Phase  string   `json:"phase"`
	Text   string   `json:"text"`
	Events []string `json:"events"`
}

// maxReportPrompts bounds the prompt records an agent's section lists.
const maxReportPrompts = 50

func agentReport(ctx context.Context, ws *incident.Workspace, out *output, agent string, findings []detect.Finding) (Agent, error) {
	ar := Agent{Agent: agent, Sessions: []string{}}
	k, c := &ar.Knew, &ar.Could
	k.Objectives, k.Models, k.Runs, k.Prompts, k.Credentials = []string{}, []string{}, []string{}, []PromptRef{}, []CredentialRef{}
	c.Tools, c.Egress = []string{}, []string{}
	sessions, err := ws.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("agent", agent), evidence.Term("kind", evidence.KindSessionStart)), Sort: evidence.SortTime, Limit: incident.MaxSubjectSessions})
	if err != nil {
		return ar, fmt.Errorf("sessions of %s: %w", agent, err)
	}
	for _, s := range sessions.Events {
		ar.Sessions = append(ar.Sessions, s.ID)
		k.Objectives = addUnique(k.Objectives, s.Objective)
		k.Models = addUnique(k.Models, s.Model)
		k.Runs = addUnique(k.Runs, s.Run)
		for _, t := range s.ToolsAllowed {
			c.Tools = addUnique(c.Tools, t)
		}
		for _, h := range s.EgressAllowlist {
			c.Egress = addUnique(c.Egress, h)
		}
		k.Credentials = append(k.Credentials, credentials(s)...)
	}
	prompts, err := ws.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("agent", agent), evidence.Term("kind", evidence.KindPrompt)), Sort: evidence.SortTime, Limit: maxReportPrompts})
	if err != nil {
		return ar, fmt.Errorf("prompts of %s: %w", agent, err)
	}
	k.PromptsTotal = int(prompts.Total)
	for _, p := range prompts.Events {
		k.Prompts = append(k.Prompts, promptRef(p))
	}
	if k.Secrets, err = secretsRead(ctx, ws, agent); err != nil {
		return ar, err
	}
	if ar.Did, err = timeline(ctx, ws, out, agent); err != nil {
		return ar, err
	}
	ar.Why = []FindingWhy{}
	for _, f := range findings {
		w, err := explainFinding(ctx, ws, f, sessions.Events)
		if err != nil {
			return ar, err
		}
		ar.Why = append(ar.Why, w)
	}
	return ar, nil
}

// maxSecretEvents bounds the cred_access events read for one agent.
const maxSecretEvents = 1000

// secretsRead groups the agent's credential accesses by what was read.
func secretsRead(ctx context.Context, st Reader, agent string) ([]SecretRead, error) {
	hits, err := st.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("agent", agent), evidence.Term("kind", evidence.KindCredAccess)), Sort: evidence.SortTime, Limit: maxSecretEvents})
	if err != nil {
		return nil, fmt.Errorf("credential accesses of %s: %w", agent, err)
	}
	out := []SecretRead{}
	at := map[string]int{}
	for _, ev := range hits.Events {
		what := ev.Path
		if what == "" {
			what = ev.Cmdline
		}
		if what == "" {
			what = ev.Message
		}
		if r := []rune(what); len(r) > 120 {
			what = string(r[:119]) + "…"
		}
		i, ok := at[what]
		if !ok {
			i = len(out)
			at[what] = i
			out = append(out, SecretRead{What: what, First: ev.Time})
		}
		out[i].Count++
		if len(out[i].Events) < 3 {
			out[i].Events = append(out[i].Events, ev.ID)
		}
	}
	return out, nil
}

func addUnique(l []string, v string) []string {
	if v == "" || slices.Contains(l, v) {
		return l
	}
	return append(l, v)
}

// credentials reads the credentials a session_start issued, with their
// kind and scope from the ledger record when it has them.
func credentials(s evidence.Event) []CredentialRef {
	var rec struct {
		Credentials []struct {
			ID    string `json:"id"`
			Kind  string `json:"kind"`
			Scope string `json:"scope"`
		} `json:"credentials"`
	}
	var out []CredentialRef
	if json.Unmarshal([]byte(s.Raw), &rec) == nil && len(rec.Credentials) > 0 {
		for _, c := range rec.Credentials {
			out = append(out, CredentialRef{ID: c.ID, Kind: c.Kind, Scope: c.Scope, Session: s.Session, Event: s.ID})
		}
		return out
	}
	for _, id := range s.Credential {
		out = append(out, CredentialRef{ID: id, Session: s.Session, Event: s.ID})
	}
	return out
}

// promptRef reads the digest and size of a prompt record.
func promptRef(ev evidence.Event) PromptRef {
	var rec struct {
		Digest string      `json:"packet_digest"`
		Tokens json.Number `json:"tokens"`
	}
	p := PromptRef{Event: ev.ID, Time: ev.Time.UTC()}
	if json.Unmarshal([]byte(ev.Raw), &rec) == nil {
		p.Digest = rec.Digest
		if n, err := rec.Tokens.Int64(); err == nil {
			p.Tokens = int(n)
		}
	}
	if p.Digest == "" {
		p.Digest = ev.Message
	}
	return p
}

// timeline is the agent's timeline as the case tells it (the same the
// console's offline timeline shows).
func timeline(ctx context.Context, ws *incident.Workspace, out *output, agent string) (Timeline, error) {
	at, err := ws.AgentTimeline(ctx, agent, out.timelineRedactor(ws))
	if err != nil {
		return Timeline{}, err
	}
	tl := Timeline{Lines: []TimelineLine{}, Note: at.Note}
	for _, m := range at.Moments {
		tl.Lines = append(tl.Lines, TimelineLine{Phase: m.Phase, Text: m.Text, Events: m.Events})
	}
	return tl, nil
}
