package detect

import (
	"encoding/json"
	"strings"

	"github.com/cordon-ir/cordon/credentials"
	"github.com/cordon-ir/cordon/evidence"
)

// egressIP reads the address a ledger session_start says its sandbox's
// traffic leaves the lab from (sandbox.egress_ip: the egress proxy's or
// the NAT's public address), as a cloud's audit log sees the sandbox.
func egressIP(raw string) string {
	if !strings.Contains(raw, `"egress_ip"`) {
		return ""
	}
	var r struct {
		Sandbox struct {
			EgressIP string `json:"egress_ip"`
		} `json:"sandbox"`
	}
	if json.Unmarshal([]byte(raw), &r) != nil {
		return ""
	}
	return r.Sandbox.EgressIP
}

// throughEgress reports an address that is the lab's own way out: a use
// from it came from some sandbox through the proxy or the NAT, not from
// outside every sandbox.
func (e *env) throughEgress(ip string) bool {
	return ip != "" && e.egress[ip]
}

// sessionNamedIn is the session whose id is a segment of p
// (/run/secrets/eval/s-228/proxy.env), the first segment from the left
// that names one. A segment that names sessions of several agents (two
// runs reusing an id) names none of them: which one the path meant is not
// for the engine to guess.
func (e *env) sessionNamedIn(p string) *session {
	for seg := range strings.SplitSeq(p, "/") {
		list := e.byName[seg]
		if len(list) == 0 {
			continue
		}
		for _, s := range list[1:] {
			if s.agent != list[0].agent {
				return nil
			}
		}
		return list[0]
	}
	return nil
}

// readCreds are the issued credentials an event that reads a credential
// location exposes to its agent: those of the session its path names, or
// of the reader's own session, whose kind the location holds; each with
// the session it was issued to.
func (e *env) readCreds(ev *evidence.Event) map[string]*session {
	if ev.Agent == "" || ev.Decision == evidence.DecisionDeny || ev.Decision == evidence.DecisionError {
		return nil
	}
	if ev.Kind != evidence.KindCredAccess && !hasTag(ev.Tags, credentials.TagCredRead) {
		return nil
	}
	out := map[string]*session{}
	for _, p := range readPaths(ev) {
		loc, ok := credentials.LocationOf(p)
		if !ok {
			continue
		}
		sess := e.sessionNamedIn(p)
		if sess == nil {
			sess = e.sessionAt(ev.Agent, ev.Time)
		}
		if sess == nil {
			continue
		}
		for _, cr := range sess.creds {
			if loc.Holds(e.kinds[cr]) {
				out[cr] = sess
			}
		}
	}
	return out
}
