package attribution

import (
	"regexp"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// A responder who runs `kubectl exec` into an agent's sandbox acts in the
// agent's container: every key attribution has (the container, the pod, the
// IP) names the agent. The API server's audit log says who opened the
// exec and into which pod; the sensors say which processes it started. A
// process is the responder's when a pods/exec (or attach) by a responder
// into its pod precedes it by at most ResponderWindow and its parent is no
// process of the pod (the exec's shell hangs off the runtime's shim, not
// off the agent's tree); what descends from it is the responder's too.

// ViaResponder is how an event a responder made in a sandbox is attributed:
// to no agent, with the person in an "actor:" tag.
const ViaResponder = "responder"

// ResponderWindow bounds how long after the exec request its first process
// may start.
const ResponderWindow = 10 * time.Second

// execRe reads the pod an exec or attach request targets from the API
// server's request URI.
var execRe = regexp.MustCompile(`^/api/v1/namespaces/([^/?]+)/pods/([^/?]+)/(?:exec|attach)(?:\?|$)`)

// podExec is one exec or attach request the API server allowed.
type podExec struct {
	at   time.Time
	user string
}

// responders is what the identity map knows of the people: who they are
// (the actors of the gateway's human_intervention records, and any named
// by AddResponders), their exec requests by pod, and the processes they
// started there.
type responders struct {
	names map[string]bool
	execs map[string][]podExec      // pod (ns/name) -> requests
	pids  map[string]map[int]string // pod -> pid -> the responder it is
	seen  map[string]map[int]bool   // pod -> pids of the pod's own processes
}

// AddResponders names people whose exec into a sandbox is theirs, not the
// agent's (cordon.yaml's responders; the ledger's human_intervention actors
// are known already).
func (id *Identity) AddResponders(names ...string) {
	r := id.people()
	for _, n := range names {
		if n != "" {
			r.names[n] = true
		}
	}
}

func (id *Identity) people() *responders {
	if id.resp == nil {
		id.resp = &responders{names: map[string]bool{}, execs: map[string][]podExec{}, pids: map[string]map[int]string{}, seen: map[string]map[int]bool{}}
	}
	return id.resp
}

// observePerson learns from a human_intervention (its actor is a person)
// and from an audit record of an exec into a pod. It reports from when
// attributions already made may change: the earliest exec that is now a
// responder's.
func (id *Identity) observePerson(ev *evidence.Event) (from time.Time, changed bool) {
	switch {
	case ev.Kind == evidence.KindHumanIntervention && ev.Source == evidence.SourceLedger && ev.User != "":
		r := id.people()
		if r.names[ev.User] {
			return time.Time{}, false
		}
		r.names[ev.User] = true
		for _, list := range r.execs {
			for _, e := range list {
				if e.user == ev.User && (from.IsZero() || e.at.Before(from)) {
					from = e.at
				}
			}
		}
	case ev.Format == "k8s-audit" && ev.Decision == evidence.DecisionAllow && ev.User != "":
		m := execRe.FindStringSubmatch(ev.URL)
		if m == nil {
			return time.Time{}, false
		}
		r := id.people()
		pod := m[1] + "/" + m[2]
		for _, e := range r.execs[pod] {
			if e.at.Equal(ev.Time) && e.user == ev.User {
				return time.Time{}, false
			}
		}
		r.execs[pod] = append(r.execs[pod], podExec{at: ev.Time, user: ev.User})
		if r.names[ev.User] {
			from = ev.Time
		}
	}
	return from, !from.IsZero()
}

// responderOf says whose a sensor event in a pod is when a responder's exec
// explains it: the responder's name, or "".
func (id *Identity) responderOf(ev *evidence.Event) string {
	if id.resp == nil || ev.Source != evidence.SourceSensor || ev.Pod == "" || ev.Pid == 0 {
		return ""
	}
	r := id.resp
	execs := r.execs[ev.Pod]
	if len(execs) == 0 {
		return ""
	}
	pids, seen := r.pids[ev.Pod], r.seen[ev.Pod]
	if pids == nil {
		pids, seen = map[int]string{}, map[int]bool{}
		r.pids[ev.Pod], r.seen[ev.Pod] = pids, seen
	}
	who := pids[ev.Pid]
	switch {
	case who != "":
	case pids[ev.Ppid] != "":
		// a child of the responder's shell
		who = pids[ev.Ppid]
	case ev.Ppid != 0 && !seen[ev.Ppid] && !seen[ev.Pid]:
		// a process of the pod whose parent is none of the pod's: a
		// runtime exec, the responder's if one of theirs just opened
		for _, e := range execs {
			if r.names[e.user] && !ev.Time.Before(e.at) && ev.Time.Sub(e.at) <= ResponderWindow {
				who = e.user
				break
			}
		}
	}
	if who == "" {
		seen[ev.Pid] = true
		return ""
	}
	if ev.Kind == evidence.KindProcExit {
		// the pid may be the pod's own again after this
		delete(pids, ev.Pid)
	} else {
		pids[ev.Pid] = who
	}
	return who
}

// AddExec records an exec into a pod that a responder ran (the kill
// switch's journaled command): the processes it starts there are theirs.
func (id *Identity) AddExec(pod string, at time.Time, who string) {
	if pod == "" || who == "" {
		return
	}
	r := id.people()
	r.names[who] = true
	r.execs[pod] = append(r.execs[pod], podExec{at: at, user: who})
}
