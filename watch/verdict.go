package watch

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/fleet"
)

// VerdictPrefix begins the subject a verdict is asked on:
// cordon.verdict.<agent>, the agent escaped as fleet.Token escapes it.
const VerdictPrefix = "cordon.verdict."

// VerdictSubject is the subject an agent's verdict is asked on.
func VerdictSubject(agent string) string { return VerdictPrefix + fleet.Token(agent) }

// VerdictQueue is the queue group watchers answer verdicts in: one of
// them answers each request.
const VerdictQueue = "cordon-verdict"

// VerdictRequest is what a caller may send (every field optional; an
// empty body is a request too).
type VerdictRequest struct {
	// ID is the caller's own id for the request, echoed and kept.
	ID string `json:"id,omitempty"`
	// Action is what the caller is about to allow (free-form: tool, host,
	// credential); kept in the receipt, not read by the policy.
	Action json.RawMessage `json:"action,omitempty"`
	// Kill is when the agent was stopped, if it was: the Assessment then
	// judges every capability of the agent at that time.
	Kill time.Time `json:"kill,omitzero"`
	// Deadline is when the caller stops waiting: a request read after it
	// is not answered (nobody listens).
	Deadline time.Time `json:"deadline,omitzero"`
}

// Verdict is the reply.
type Verdict struct {
	// VerdictID, RequestID and At differ per request and come first
	// (see verdict_reply.go).
	VerdictID string `json:"verdict_id"`
	RequestID string `json:"request_id,omitempty"`
	// At is the watcher's wall clock when it answered.
	At             time.Time `json:"at"`
	Agent          string    `json:"agent"`
	Recommendation string    `json:"recommendation"`
	// Clauses are the policy clauses that decided (refuse.severity,
	// refuse.acquired, review.severity, review.acquired; none: allow).
	Clauses []string `json:"clauses"`
	// Rules are the ids of the detection rules whose findings decided.
	Rules []string `json:"rules"`
	// Reasons say in words what decided, one line each.
	Reasons []string `json:"reasons"`
	// Known says the watcher has read any evidence of the agent.
	Known      bool   `json:"known"`
	RulesHash  string `json:"rules_hash"`
	PolicyHash string `json:"policy_hash"`
	Watcher    string `json:"watcher"`
	// Watermark is the event time of the last event the pass took: the
	// verdict knows nothing later.
	Watermark    time.Time         `json:"watermark,omitzero"`
	Events       int64             `json:"events"`
	Rank         *detect.AgentRank `json:"rank,omitempty"`
	Findings     []VerdictFinding  `json:"findings"`
	Capabilities []VerdictCap      `json:"capabilities"`
	// FindingCount, CapabilityCount and ReasonCount are how many there
	// are when the lists name fewer (verdict_fit.go); absent when whole.
	FindingCount    int `json:"finding_count,omitempty"`
	CapabilityCount int `json:"capability_count,omitempty"`
	ReasonCount     int `json:"reason_count,omitempty"`
	// Assessment is capability.Assess of the agent at the request's kill
	// time (absent without one).
	Assessment *capability.Assessment `json:"assessment,omitempty"`
	// Standing is, for a request with no kill time about an agent its
	// harness killed, what the Assessment at that kill says of it (the
	// fleet's Standing: kill, who recorded it, contained, holds); the
	// capabilities' state and line are that Assessment's. The whole
	// Assessment is a request's with that kill.
	Standing *capability.Standing `json:"standing,omitempty"`
	// Evidence are the event ids of what decided (at most maxEvidence).
	Evidence []string `json:"evidence"`
	// Attribution says how the agent was found, for a request that did
	// not name it (ext_authz: see Ask); absent on cordon.verdict.<agent>.
	Attribution *VerdictAttribution `json:"attribution,omitempty"`
}

// VerdictFinding is one open finding of the agent, as a verdict names it.
type VerdictFinding struct {
	ID       string    `json:"id"`
	Detector string    `json:"detector"`
	Severity string    `json:"severity"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Events   int       `json:"events"`
}

// VerdictCap is one capability the agent acquired, and its state.
type VerdictCap struct {
	Kind  capability.Kind `json:"kind"`
	Value string          `json:"value"`
	// Owner is whom a credential was issued to: the victim, not the
	// holder.
	Owner string `json:"owner,omitempty"`
	How   string `json:"how"`
	// Held says the agent may hold it still: with a kill time, the
	// Assessment does not find it stopped; without, no authoritative
	// record ended it (capability.Unended). A kind nothing stops (data
	// that left) is never held, and counts for the policy as present.
	Held bool `json:"held"`
	// State and Line are the Assessment's, with a kill time.
	State capability.State `json:"state,omitempty"`
	Line  string           `json:"line,omitempty"`
}

// requestKill names what recorded a kill time the request gave.
const requestKill = "the request's kill"

// maxEvidence bounds the event ids a verdict names.
const maxEvidence = 100

// view is what verdicts are answered from: the pass's answer as its
// View gave it to the watcher's loop (sharing every agent's part that did
// not change with the view before), read by any number of requests at
// once and changed by none.
type view struct {
	res       detect.Result
	byAgent   map[string][]detect.Finding
	ranks     map[string]detect.AgentRank
	watermark time.Time
	events    int64
	// standings are the agents its harness killed (detect.View.Standings)
	standings map[string]capability.Standing
	// id is the pass's identity map when the copy was taken: who a
	// request from outside NATS belongs to (see Ask)
	id *attribution.Identity
	// memo holds the decisions made on this view (verdict_reply.go)
	memo memo
}

func newView(dv detect.View, last time.Time, events int64) *view {
	v := &view{res: dv.Result, byAgent: map[string][]detect.Finding{}, ranks: make(map[string]detect.AgentRank, len(dv.Ranks)),
		standings: dv.Standings, watermark: last, events: events}
	for _, f := range dv.Findings {
		v.byAgent[f.Agent] = append(v.byAgent[f.Agent], f)
	}
	for _, r := range dv.Ranks {
		v.ranks[r.Agent] = r
	}
	return v
}

// decide is the verdict for agent on v under pol. It reads no
// suppression: a suppression hides a finding from a person's list, it
// never changes what an enforcement point is told.
func decide(v *view, pol *Policy, agent string, req *VerdictRequest) Verdict {
	out := Verdict{Agent: agent, Recommendation: Allow, Clauses: []string{}, Rules: []string{}, Reasons: []string{},
		Findings: []VerdictFinding{}, Capabilities: []VerdictCap{}, Evidence: []string{}, Watermark: v.watermark, Events: v.events}
	fs := v.byAgent[agent]
	if r, ok := v.ranks[agent]; ok {
		out.Rank = &r
	}
	// the kill judged at: the request's, else the harness's, which the
	// rank line is judged at already
	kill, harness := req.Kill, false
	if st, ok := v.standings[agent]; ok && kill.IsZero() {
		kill, harness = st.Kill, true
	}
	var assessment *capability.Assessment
	if !kill.IsZero() && v.res.Capabilities != nil {
		a := capability.Assess(v.res.Capabilities, []string{agent}, kill, time.Time{}, v.res.Coverage)
		assessment = &a
		if harness {
			// the reply stays small: what that Assessment says of the agent
			st := v.standings[agent]
			out.Standing = &st
		} else {
			out.Assessment = assessment
			// one reply says one thing: its rank line judged at the
			// request's kill too, not at the harness's
			if st, ok := a.Standing(agent, requestKill); ok && out.Rank != nil {
				r := out.Rank.JudgedBy(st)
				out.Rank = &r
			}
		}
	}
	var caps []capability.Capability
	if v.res.Capabilities != nil {
		caps = v.res.Capabilities.For(agent)
	}
	out.Known = len(fs) > 0 || len(caps) > 0
	acquired := map[int]capability.Capability{}
	for _, f := range fs {
		out.Findings = append(out.Findings, VerdictFinding{ID: f.ID, Detector: f.Detector, Severity: f.Severity, Start: f.Start, End: f.End, Events: len(f.Events)})
	}
	for _, c := range caps {
		if c.Origin != capability.Acquired {
			continue
		}
		vc := VerdictCap{Kind: c.Kind, Value: c.Value, Owner: c.Owner, How: c.How, Held: capability.Unended(&c)}
		if assessment != nil && capability.Judged(&c) {
			if jv, ok := assessment.Of(&c); ok {
				vc.State, vc.Line, vc.Held = jv.State, jv.Line, jv.State != capability.Stopped
			}
		}
		acquired[len(out.Capabilities)] = c
		out.Capabilities = append(out.Capabilities, vc)
	}
	if !out.Known {
		out.Reasons = append(out.Reasons, "no evidence of this agent in the watcher's pass: nothing to refuse it for (the caller's own grant checks still apply)")
		return out
	}
	decided := map[int]bool{} // the capabilities a clause decided on
	for _, step := range []struct {
		rec    string
		clause Clause
	}{{Refuse, pol.Refuse}, {Review, pol.Review}} {
		seen := map[string]bool{}
		if step.clause.Severity != "" {
			for _, f := range fs {
				if detect.SeverityRank(f.Severity) < detect.SeverityRank(step.clause.Severity) ||
					len(step.clause.Detectors) > 0 && !slices.Contains(step.clause.Detectors, f.Detector) {
					continue
				}
				addOnce(&out.Clauses, step.rec+".severity")
				if !seen[f.Detector] {
					seen[f.Detector] = true
					out.Rules = append(out.Rules, f.Detector)
				}
				out.Reasons = append(out.Reasons, fmt.Sprintf("finding %s: %s, %s, %s to %s", f.ID, f.Detector, f.Severity,
					f.Start.UTC().Format(time.RFC3339), f.End.UTC().Format(time.RFC3339)))
				out.Evidence = appendEvidence(out.Evidence, f.Events)
			}
		}
		for i, vc := range out.Capabilities {
			c := acquired[i]
			if !slices.Contains(step.clause.Acquired, vc.Kind) || !vc.Held && capability.Judged(&c) {
				continue
			}
			addOnce(&out.Clauses, step.rec+".acquired")
			decided[i] = true
			line := fmt.Sprintf("acquired %s %s", vc.Kind, vc.Value)
			if vc.Owner != "" && vc.Owner != agent {
				line += " (issued to " + vc.Owner + ")"
			}
			switch {
			case vc.Line != "":
				line += ": " + vc.Line
			case vc.Held:
				line += ": nothing its issuer recorded ended it"
			}
			out.Reasons = append(out.Reasons, line)
			out.Evidence = appendEvidence(out.Evidence, c.Acquired)
		}
		if len(out.Clauses) > 0 {
			out.Recommendation = step.rec
			trimVerdict(&out, decided)
			return out
		}
	}
	out.Reasons = append(out.Reasons, "no open finding or acquired capability the policy refuses or reviews")
	trimVerdict(&out, decided)
	return out
}

func addOnce(list *[]string, s string) {
	if !slices.Contains(*list, s) {
		*list = append(*list, s)
	}
}

func appendEvidence(out, ids []string) []string {
	for _, id := range ids {
		if len(out) >= maxEvidence {
			break
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}
