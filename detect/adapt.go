package detect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// adaptation is denial_adaptation: a refused action followed, within the
// window, by the same intent through another route. It is Go because it
// joins events on values they share (a call id, a retry_of, a path, a
// destination) and compares the routes field by field:
//
//   - a tool call that retries (retry_of) a call that was refused, or that
//     was followed by proxy denials, using another tool, program, scheme,
//     port or destination;
//   - a tool call on a path whose access was refused, by another tool or
//     program;
//   - a network attempt at a destination the proxy or the gateway refused,
//     by another scheme, port, proxy credential or program, or directly;
//     a connection that names only an address is an attempt at a refused
//     host when a source observed that address serve it (addrBook), never
//     on what the agent wrote.
//
// A plain repeat of the refused action is not an adaptation.
type adaptation struct {
	r      *Rule
	e      *env
	agents map[string]*adaptState
	// made is each agent's findings as done last made them, and of how
	// many adaptations: an agent's adaptations only grow, and its
	// findings are theirs alone, so an agent none were added to since
	// is not made again (a live pass asks after every round)
	made map[string]madeOf
}

// madeOf is a correlator's findings of one agent, made of its first n
// matches.
type madeOf struct {
	n  int
	fs []Finding
}

type adaptState struct {
	calls   map[string]*call
	last    *call
	denials []*denial            // the last window's, oldest first
	byCall  map[string][]*denial // call id -> denials it caused
	// lastOf is the last denial of the window per host: what a request
	// is checked against, looked up rather than found by walking the
	// window (an agent refused thousands of times a window made every
	// request walk them all)
	lastOf map[string]*denial
	// byPath are the window's denials of a call naming a path, per path,
	// oldest first
	byPath map[string][]*denial
	n      int // denials so far: each denial's place
	found  []adapted
}

func newAdaptState() *adaptState {
	return &adaptState{calls: map[string]*call{}, byCall: map[string][]*denial{}, lastOf: map[string]*denial{}, byPath: map[string][]*denial{}}
}

type denial struct {
	n      int // its place among the agent's denials
	t      time.Time
	ids    []string
	callID string
	host   string
	path   string
	tool   string
	what   string
	r      route
}

type adapted struct {
	t    time.Time
	hits []hit
	desc string
	// values are what drove it, when the correlation names such values
	values []string
}

// callLink is how long after a tool call a proxy denial is taken to be
// its doing.
const callLink = time.Minute

func newAdaptation(r *Rule, e *env) *adaptation {
	return &adaptation{r: r, e: e, agents: map[string]*adaptState{}, made: map[string]madeOf{}}
}

func (a *adaptation) add(_ int, ev *evidence.Event) {
	if ev.Agent == "" {
		return
	}
	st := a.agents[ev.Agent]
	if st == nil {
		st = newAdaptState()
		a.agents[ev.Agent] = st
	}
	from := ev.Time.Add(-a.r.Correlation.Window)
	st.expire(from)
	switch {
	case ev.Kind == evidence.KindToolCall:
		c := a.e.call(ev)
		a.onCall(st, c, from)
		st.last = c
		if c.callID != "" {
			st.calls[c.callID] = c
		}
	case isDenied(ev) && ev.Source == evidence.SourceLedger:
		if prev := st.byCall[ev.CallID]; len(prev) > 0 && ev.CallID != "" {
			prev[0].ids = append(prev[0].ids, ev.ID)
			return
		}
		d := &denial{t: ev.Time, ids: []string{ev.ID}, callID: ev.CallID, host: strings.ToLower(ev.DstHost)}
		if c := st.calls[ev.CallID]; c != nil {
			d.ids = append(d.ids, c.id)
			d.tool, d.path, d.r = c.tool, c.path, route{scheme: c.scheme, port: c.port, bin: c.bin}
			if d.host == "" && len(c.hosts) > 0 {
				d.host = c.hosts[0]
			}
			d.what = strings.TrimSpace(c.tool + " " + c.bin)
		}
		if ev.DstPort != 0 {
			d.r.port = ev.DstPort
		}
		a.deny(st, d)
	case ev.Kind == evidence.KindNetRequest || ev.Kind == evidence.KindNetConnect:
		host := destination(ev)
		if host == "" {
			return
		}
		r := netRoute(ev)
		prev, via := st.lastDenialOf(host), ""
		if prev == nil && addressOnly(ev) {
			prev, via = st.lastDenialServedBy(&a.e.addrs, ev.DstIP)
		}
		if prev != nil {
			if how := prev.r.differs(r); how != "" {
				if via != "" {
					how += " to " + ev.DstIP + portSuffix(ev.DstPort) + " (" + via + ")"
				}
				st.found = append(st.found, adapted{t: ev.Time, hits: prev.hits(ev.Agent, hit{ev.Time, ev.ID, ev.Agent}),
					desc: fmt.Sprintf("%s %s refused, then %s", prev.what, prev.host+portSuffix(prev.r.port), how)})
			}
		}
		if isDenied(ev) {
			d := &denial{t: ev.Time, ids: []string{ev.ID}, host: host, r: r, what: "request to"}
			if st.last != nil && ev.Time.Sub(st.last.t) <= callLink {
				d.callID = st.last.callID
			}
			a.deny(st, d)
		}
	}
}

func (a *adaptation) deny(st *adaptState, d *denial) {
	if d.what == "" {
		d.what = "request to"
	}
	st.n++
	d.n = st.n
	st.denials = append(st.denials, d)
	st.lastOf[d.host] = d
	if d.path != "" {
		st.byPath[d.path] = append(st.byPath[d.path], d)
	}
	if d.callID != "" {
		st.byCall[d.callID] = append(st.byCall[d.callID], d)
	}
}

// onCall checks a tool call against the refusals before it.
func (a *adaptation) onCall(st *adaptState, c *call, from time.Time) {
	if c.retryOf != "" {
		orig := st.calls[c.retryOf]
		for _, d := range st.byCall[c.retryOf] {
			if d.t.Before(from) || orig == nil {
				continue
			}
			if how := callDiffers(orig, c); how != "" {
				st.found = append(st.found, adapted{t: c.t, hits: d.hits(c.agent, hit{c.t, c.id, c.agent}, hit{orig.t, orig.id, c.agent}),
					desc: fmt.Sprintf("%s (%s) refused, retried as %s (%s)", orig.callID, describe(orig), how, c.callID)})
			}
			return
		}
	}
	if d := st.lastDenialOfPaths(c); d != nil {
		if c.tool != d.tool || c.bin != d.r.bin {
			st.found = append(st.found, adapted{t: c.t, hits: d.hits(c.agent, hit{c.t, c.id, c.agent}),
				desc: fmt.Sprintf("%s of %s refused, then %s (%s)", d.tool, d.path, describe(c), c.callID)})
		}
	}
}

// lastDenialOfPaths is the window's latest denial of another call than c
// that named a path c names.
func (st *adaptState) lastDenialOfPaths(c *call) *denial {
	var last *denial
	for _, p := range c.paths {
		list := st.byPath[p]
		for i := len(list) - 1; i >= 0; i-- {
			if list[i].callID == c.callID {
				continue
			}
			if last == nil || list[i].n > last.n {
				last = list[i]
			}
			break
		}
	}
	return last
}

// expire drops the refusals before from: the window has passed them.
func (st *adaptState) expire(from time.Time) {
	for len(st.denials) > 0 && st.denials[0].t.Before(from) {
		d := st.denials[0]
		if st.lastOf[d.host] == d {
			delete(st.lastOf, d.host)
		}
		if list := st.byPath[d.path]; len(list) > 0 && list[0] == d {
			if len(list) == 1 {
				delete(st.byPath, d.path)
			} else {
				st.byPath[d.path] = list[1:]
			}
		}
		st.denials = st.denials[1:]
	}
}

// lastDenialOf is the window's latest refusal of host.
func (st *adaptState) lastDenialOf(host string) *denial { return st.lastOf[host] }

// lastDenialServedBy is the latest refusal of a host the evidence saw
// the address ip serve (addrBook), and the tie as the finding says it;
// nil when no source ties the address to a refused host: an address is
// never taken to be a host on what the agent wrote.
//
// It is the latest of the window's last refusals of the hosts the book
// ties ip to (at most maxTies).
func (st *adaptState) lastDenialServedBy(book *addrBook, ip string) (*denial, string) {
	var last *denial
	for _, t := range book.tiesOf(ip) {
		if t.host == "" || t.host == ip {
			continue
		}
		if d := st.lastOf[t.host]; d != nil && (last == nil || d.n > last.n) {
			last = d
		}
	}
	if last == nil {
		return nil, ""
	}
	return last, book.tieOf(ip, last.host).says(ip)
}

func (d *denial) hits(agent string, more ...hit) []hit {
	var out []hit
	for _, id := range d.ids {
		out = append(out, hit{t: d.t, id: id, agent: agent})
	}
	return append(out, more...)
}

// callDiffers names how a retry's route differs from the call it retries.
func callDiffers(orig, retry *call) string {
	switch {
	case orig.tool != retry.tool:
		return "tool " + retry.tool
	case orig.bin != retry.bin:
		return retry.bin
	case orig.scheme != "" && retry.scheme != "" && orig.scheme != retry.scheme:
		return "over " + retry.scheme
	case orig.port != retry.port && retry.port != 0:
		return "port " + strconv.Itoa(retry.port)
	case strings.Join(orig.hosts, ",") != strings.Join(retry.hosts, ","):
		return "another destination"
	}
	return ""
}

func describe(c *call) string {
	if c.bin != "" {
		return c.tool + " " + c.bin
	}
	return c.tool
}

func portSuffix(p int) string {
	if p == 0 {
		return ""
	}
	return ":" + strconv.Itoa(p)
}

func (a *adaptation) done() []Finding {
	var out []Finding
	for _, agent := range sortedKeys(a.agents) {
		found := a.agents[agent].found
		if m, ok := a.made[agent]; ok && m.n == len(found) {
			out = append(out, m.fs...)
			continue
		}
		from := len(out)
		for _, run := range runs(a.r, found, func(x adapted) time.Time { return x.t }) {
			var hits []hit
			var descs []string
			denials := map[string]bool{}
			for _, f := range run {
				hits = append(hits, f.hits...)
				descs = append(descs, f.desc)
				denials[f.hits[0].id] = true
			}
			out = append(out, a.r.newFinding(agent, hits, map[string]string{
				"denials": strconv.Itoa(len(denials)), "routes": strconv.Itoa(len(run)), "detail": listValues(descs, 3),
			}))
		}
		a.made[agent] = madeOf{len(found), slices.Clip(out[from:])}
	}
	return out
}
