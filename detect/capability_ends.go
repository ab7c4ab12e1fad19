package detect

import (
	"strings"
	"time"

	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/evidence"
)

// issuerName names the source of an end as a person reads it.
func issuerName(ev *evidence.Event) string {
	switch ev.Format {
	case "cloudtrail":
		return "CloudTrail"
	case "k8s-audit":
		return "the Kubernetes audit log"
	case "github-audit":
		return "GitHub's audit log"
	case "gcp-audit":
		return "Google Cloud's audit log"
	}
	if ev.Source == evidence.SourceSensor {
		return "the runtime sensor (" + ev.Format + ")"
	}
	if ev.Source == evidence.SourceLedger {
		return "the tool gateway's ledger"
	}
	return ev.Format
}

// deletedPod is the pod a Kubernetes audit record says was deleted
// (DELETE /api/v1/namespaces/NS/pods/NAME, answered 2xx), or "".
func deletedPod(ev *evidence.Event) string {
	if ev.Format != "k8s-audit" || ev.Method != "delete" || ev.Decision != evidence.DecisionAllow {
		return ""
	}
	u := ev.URL
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	parts := strings.Split(strings.Trim(u, "/"), "/")
	n := len(parts)
	if n >= 2 && parts[n-2] == "pods" {
		return parts[n-1]
	}
	return ""
}

// podName is a pod's name without its namespace (sensors may write
// "ns/name").
func podName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// callUse is a tool call waiting for its result: a use of its session's
// tool calls that may still be in flight, by its event's id (thinning
// moves the uses).
type callUse struct {
	c  *capability.Capability
	id string
}

// call records a tool call as a use of its session's tool calls, open
// until its result is seen.
func (s *capScan) call(ev *evidence.Event) {
	key := ev.Session
	if key == "" {
		key = "its session"
	}
	c := s.entry(ev.Agent, capability.ToolCall, key, capability.Granted)
	if c.How == "" {
		c.How, c.Provenance = "its tool calls through the gateway", capability.ByCall
		c.Acquired = []string{ev.ID}
	}
	u := capability.Use{Time: ev.Time, ID: ev.ID, Source: ev.Source, Format: ev.Format, From: ev.Tool,
		Refused: ev.Decision == evidence.DecisionDeny}
	if ev.CallID != "" {
		u.Open = true
		s.calls[ev.CallID] = &callUse{c: c, id: ev.ID}
	}
	c.AddUse(u)
}

// result closes the call a tool result answers: the use lasted from the
// call to its result, refused when the gateway denied it.
func (s *capScan) result(ev *evidence.Event) {
	cu := s.calls[ev.CallID]
	if cu == nil {
		return
	}
	delete(s.calls, ev.CallID)
	s.touch(cu.c)
	// the latest open use with its id: a result comes soon after its call
	cu.c.CloseUse(cu.id, ev.Time, ev.Decision == evidence.DecisionDeny || ev.Status == "denied")
}

// openCalls leaves the calls with no result open: nothing shows they
// ended.
func (s *capScan) openCalls() { clear(s.calls) }

// sessionEnd is the gateway's own record that a session ended: its tool
// calls end there.
func (s *capScan) sessionEnd(ev *evidence.Event) {
	if ev.Agent == "" || !s.has(ev.Agent, capability.ToolCall, ev.Session) {
		return
	}
	c := s.entry(ev.Agent, capability.ToolCall, ev.Session, capability.Granted)
	how := "session ended"
	if ev.Status != "" {
		how += " (" + ev.Status + ")"
	}
	c.AddEnd(capability.End{At: ev.Time, How: how, ID: ev.ID, By: issuerName(ev), Source: ev.Source, Authority: capability.Authoritative})
}

// durOf is how long the use an event records lasted (its duration_ms).
func durOf(ev *evidence.Event) time.Duration {
	return time.Duration(max(ev.DurationMS, 0)) * time.Millisecond
}

// endOf is when the use an event records ended: Squid writes a
// transaction at its end; Envoy and the gateway at its start.
func endOf(ev *evidence.Event) time.Time {
	if ev.Format == "squid" {
		return ev.Time
	}
	return ev.Time.Add(durOf(ev))
}
