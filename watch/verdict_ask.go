package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// Verdicts asked from outside NATS (an Envoy ext_authz check) name no
// agent: the request is a proxy's, and the agent is found from its keys
// as the watcher's pass attributes the proxy's log line of it. The
// decision, the receipts and their chain are the ones cordon.verdict.<agent>
// has.

// ErrNotServing says the watcher does not answer verdicts now: it was not
// asked to, it is still rebuilding its pass from the stream, or it stopped.
var ErrNotServing = errors.New("the watcher is not answering verdicts now")

// ErrExpired says the caller's deadline passed before the verdict was
// decided: nothing was answered and no receipt kept.
var ErrExpired = errors.New("the caller's deadline passed before the verdict was decided")

// VerdictAttribution is how the agent of a request was found.
type VerdictAttribution struct {
	// Via is the key that decided (container, pod, src_ip, credential),
	// "ambiguous" when keys point at different agents, "" when none is
	// bound to an agent.
	Via string `json:"via"`
	// Keys are the request's keys attribution read (src_ip, user,
	// container, pod).
	Keys map[string]string `json:"keys"`
	// Candidates are the agents the keys pointed at; an ambiguous
	// request gets the most severe of their verdicts.
	Candidates []string `json:"candidates,omitempty"`
	Session    string   `json:"session,omitempty"`
	Sandbox    string   `json:"sandbox,omitempty"`
	// AfterEnd: the key's session had ended and nothing bound it since.
	AfterEnd  bool `json:"after_end,omitempty"`
	Contested bool `json:"contested,omitempty"`
}

// Ask is the verdict for a proxy's request ev (its time, source address,
// proxy login as User, and the container or pod when the gateway knows
// them): attributed with the identity map of the watcher's pass, then
// decided as a request on cordon.verdict.<agent> is. Its receipt, with
// subject and req as its request, goes in the watcher's chain.
func (w *Watcher) Ask(ev *evidence.Event, req VerdictRequest, subject string) (Verdict, error) {
	v := w.verdicts
	if v == nil {
		return Verdict{}, ErrNotServing
	}
	v.gate.RLock()
	defer v.gate.RUnlock()
	if !v.serving {
		return Verdict{}, ErrNotServing
	}
	if !req.Deadline.IsZero() && time.Now().After(req.Deadline) {
		v.expired.Add(1)
		return Verdict{}, ErrExpired
	}
	vw := v.view.Load()
	if vw == nil {
		vw = &view{}
	}
	q := *ev
	q.Source = evidence.SourceProxy
	if q.Time.IsZero() {
		q.Time = time.Now()
	}
	var a attribution.Attribution
	if vw.id != nil {
		a = vw.id.Attribute(&q)
	}
	out := decideAttributed(vw, &v.pol, &q, a, &req, v.own)
	v.stamp(&out, &req)
	v.answered.Add(1)
	b, err := json.Marshal(req)
	if err != nil {
		return Verdict{}, err
	}
	v.keep(subject, b, out, nil)
	return out, nil
}

// decideAttributed is decide for the agent a found: each candidate's
// verdict, the most severe standing, when the keys disagree; the verdict
// of an agent nobody knows when none is bound (the absence of evidence is
// not evidence of an escape: docs/verdicts.md).
func decideAttributed(vw *view, pol *Policy, ev *evidence.Event, a attribution.Attribution, req *VerdictRequest, own func(*Verdict)) Verdict {
	at := &VerdictAttribution{Via: a.Via, Keys: keysOf(ev), AfterEnd: a.AfterEnd, Contested: a.Contested}
	if a.Binding != nil {
		at.Session, at.Sandbox = a.Binding.Session, a.Binding.Sandbox
	}
	cands := []string{a.Agent}
	switch {
	case a.Via == attribution.ViaAmbiguous && len(a.Candidates) > 0:
		cands = a.Candidates
		at.Candidates = a.Candidates
	case a.Agent == "":
		at.Via = "" // a responder's exec (sensors only) is no agent's either
	}
	var out Verdict
	for i, c := range cands {
		var d Verdict
		if req.Kill.IsZero() {
			d = vw.decision(pol, c, req, own).verdict // shared: changed below only in fields of its own
		} else {
			d = decide(vw, pol, c, req)
		}
		if i == 0 || severer(d.Recommendation, out.Recommendation) {
			out = d
		}
	}
	out.Attribution = at
	out.Reasons = append([]string{attributedLine(at, out.Agent)}, out.Reasons...)
	return out
}

// severer reports whether recommendation a is more severe than b.
func severer(a, b string) bool {
	level := func(r string) int {
		switch r {
		case Refuse:
			return 2
		case Review:
			return 1
		}
		return 0
	}
	return level(a) > level(b)
}

// keysOf are the keys of ev attribution reads.
func keysOf(ev *evidence.Event) map[string]string {
	keys := map[string]string{}
	for k, v := range map[string]string{"src_ip": ev.SrcIP, "user": ev.User, "container": ev.Container, "pod": ev.Pod} {
		if v != "" {
			keys[k] = v
		}
	}
	if len(ev.Credential) > 0 {
		keys["credential"] = strings.Join(ev.Credential, ",")
	}
	return keys
}

// attributedLine says in words how the request's agent was found.
func attributedLine(at *VerdictAttribution, agent string) string {
	var keys []string
	for _, k := range []string{"container", "pod", "src_ip", "user", "credential"} {
		if v, ok := at.Keys[k]; ok {
			keys = append(keys, k+" "+v)
		}
	}
	ks := strings.Join(keys, ", ")
	if ks == "" {
		ks = "no key"
	}
	switch at.Via {
	case "":
		return fmt.Sprintf("request (%s) bound to no agent by the session records the watcher read", ks)
	case attribution.ViaAmbiguous:
		return fmt.Sprintf("request (%s) points at %s: the most severe of their verdicts stands, %s's", ks, strings.Join(at.Candidates, " and "), agent)
	}
	line := fmt.Sprintf("request (%s) attributed to %s via %s", ks, agent, at.Via)
	if at.Session != "" {
		line += fmt.Sprintf(" (session %s, sandbox %s)", at.Session, at.Sandbox)
	}
	if at.AfterEnd {
		line += ", after its session ended"
	}
	return line
}
