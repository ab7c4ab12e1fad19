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
	// is not made again (a live pass asks after every round); nor are
	// its episodes before the last one made, which an adaptation added
	// after them cannot join (episodes end at a gap between two
	// consecutive adaptations longer than the window)
	made map[string]adaptMade
	// afresh makes the last episode's finding with newFinding, as the
	// others are, instead of extending the one kept (tests: FindingsAfresh)
	afresh bool
}

// adaptMade is an agent's findings of its first n adaptations, those of
// the episodes before its last one (which begins at the last-th) apart,
// and what the last one's finding was made of, to be extended by the
// adaptations added to it since rather than made again: at a million
// events an agent's last episode holds thousands.
type adaptMade struct {
	madeOf
	last   int
	before []Finding
	open   adaptOpen
}

// madeOf is a correlator's findings of one agent, made of its first n
// matches.
type madeOf struct {
	n  int
	fs []Finding
}

type adaptState struct {
	calls   recentCalls
	last    *call
	denials []*denial            // the last window's, oldest first
	byCall  map[string][]*denial // call id -> the window's denials it caused
	// lastOf is the last denial of the window per host: what a request
	// is checked against, looked up rather than found by walking the
	// window (an agent refused thousands of times a window made every
	// request walk them all)
	lastOf map[string]*denial
	// byPath are the window's denials of a call naming a path, per path,
	// oldest first
	byPath map[string][]*denial
	n      int // denials so far: each denial's place
	// the adaptations found, their hits packed for agent (whose state
	// this is)
	matchList
	agent string
	// inEpisode counts the adaptations of the last episode
	inEpisode int
}

func newAdaptState() *adaptState {
	return &adaptState{calls: newRecentCalls(), byCall: map[string][]*denial{}, lastOf: map[string]*denial{}, byPath: map[string][]*denial{}}
}

type denial struct {
	n      int // its place among the agent's denials
	t      time.Time
	ids    []string
	callID string
	c      *call // the call refused, when the window still held it
	host   string
	path   string
	tool   string
	what   string
	r      route
}

// callLink is how long after a tool call a proxy denial is taken to be
// its doing.
const callLink = time.Minute

func newAdaptation(r *Rule, e *env) *adaptation {
	return &adaptation{r: r, e: e, agents: map[string]*adaptState{}, made: map[string]adaptMade{}}
}

func (a *adaptation) add(_ int, ev *evidence.Event) {
	if ev.Agent == "" {
		return
	}
	st := a.agents[ev.Agent]
	if st == nil {
		st = newAdaptState()
		st.agent = ev.Agent
		a.agents[ev.Agent] = st
	}
	from := ev.Time.Add(-a.r.Correlation.Window)
	st.expire(from)
	switch {
	case ev.Kind == evidence.KindToolCall:
		c := a.e.call(ev)
		a.onCall(st, c, from)
		st.last = c
		st.calls.add(c)
	case isDenied(ev) && ev.Source == evidence.SourceLedger:
		if prev := st.byCall[ev.CallID]; len(prev) > 0 && ev.CallID != "" {
			prev[0].ids = append(prev[0].ids, ev.ID)
			return
		}
		d := &denial{t: ev.Time, ids: []string{ev.ID}, callID: ev.CallID, host: strings.ToLower(ev.DstHost)}
		if c := st.calls.get(ev.CallID); c != nil {
			d.c = c
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
				a.adapted(st, ev.Time, prev.hits(ev.Agent, hit{ev.Time, ev.ID, ev.Agent}), func() string {
					return fmt.Sprintf("%s %s refused, then %s", prev.what, prev.host+portSuffix(prev.r.port), how)
				})
			}
		}
		if isDenied(ev) {
			d := &denial{t: ev.Time, ids: []string{ev.ID}, host: host, r: r, what: "request to"}
			if st.last != nil && ev.Time.Sub(st.last.t) <= callLink {
				d.callID, d.c = st.last.callID, st.last
			}
			a.deny(st, d)
		}
	}
}

// described is how many adaptations of an episode a finding describes
// (its detail lists them and counts the rest).
const described = 3

// adapted adds an adaptation at t citing hits to st's (matchList: the
// hits packed). Its description is made and kept only when it is
// among the first described of its episode (episodes: a gap longer than
// the window begins one), the only ones a finding lists: at ten million
// events the descriptions no finding showed held 56 MB.
func (a *adaptation) adapted(st *adaptState, t time.Time, hits []hit, desc func() string) {
	if n := st.len(); n == 0 || t.Sub(st.at(n-1)) > a.r.Correlation.Window {
		st.inEpisode = 0
	}
	d := ""
	if st.inEpisode < described {
		d = desc()
	}
	st.inEpisode++
	st.add(t, hits, st.agent, d)
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
		for _, d := range st.byCall[c.retryOf] {
			orig := d.c
			if d.t.Before(from) || orig == nil {
				continue
			}
			if how := callDiffers(orig, c); how != "" {
				a.adapted(st, c.t, d.hits(c.agent, hit{c.t, c.id, c.agent}, hit{orig.t, orig.id, c.agent}), func() string {
					return fmt.Sprintf("%s (%s) refused, retried as %s (%s)", orig.callID, describe(orig), how, c.callID)
				})
			}
			return
		}
	}
	if d := st.lastDenialOfPaths(c); d != nil {
		if c.tool != d.tool || c.bin != d.r.bin {
			a.adapted(st, c.t, d.hits(c.agent, hit{c.t, c.id, c.agent}), func() string {
				return fmt.Sprintf("%s of %s refused, then %s (%s)", d.tool, d.path, describe(c), c.callID)
			})
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

// expire drops the refusals and the calls before from: the window has
// passed them.
func (st *adaptState) expire(from time.Time) {
	st.calls.expire(from)
	if st.last != nil && st.last.t.Before(from) {
		st.last = nil // a proxy refusal is tied to a call a minute before it
	}
	for len(st.denials) > 0 && st.denials[0].t.Before(from) {
		d := st.denials[0]
		if list := st.byCall[d.callID]; len(list) > 0 && list[0] == d {
			if len(list) == 1 {
				delete(st.byCall, d.callID)
			} else {
				st.byCall[d.callID] = list[1:]
			}
		}
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
		st := a.agents[agent]
		n := st.len()
		m, ok := a.made[agent]
		if ok && m.n == n || n == 0 {
			out = append(out, m.fs...)
			continue
		}
		from := len(out)
		out = append(out, m.before...)
		times := make([]time.Time, n-m.last)
		for i := range times {
			times[i] = st.at(m.last + i)
		}
		eps := episodes(times, a.r.Correlation.Window)
		for _, ep := range eps[:len(eps)-1] {
			if lo, hi := m.last+ep[0], m.last+ep[1]; a.r.Correlation.Condition.Holds(float64(hi - lo)) {
				out = append(out, a.finding(agent, st, lo, hi))
			}
		}
		before, o := slices.Clip(out[from:]), m.open
		start := m.last + eps[len(eps)-1][0]
		switch {
		case a.afresh:
			if a.r.Correlation.Condition.Holds(float64(n - start)) {
				out = append(out, a.finding(agent, st, start, n))
			}
		default:
			if o.denials == nil || o.from != start {
				o = newAdaptOpen(start)
			}
			o.extend(&st.matchList, n, agent)
			if n := o.upto - o.from; a.r.Correlation.Condition.Holds(float64(n)) {
				out = append(out, a.r.sortedFinding(agent, o.hits, map[string]string{
					"denials": strconv.Itoa(len(o.denials)), "routes": strconv.Itoa(n), "detail": listValues(o.descs, described),
				}))
			}
		}
		a.made[agent] = adaptMade{madeOf{n, slices.Clip(out[from:])}, start, before, o}
	}
	return out
}

// finding is the finding of an episode of adaptations, the lo-th to
// the one before the hi-th, made whole.
func (a *adaptation) finding(agent string, st *adaptState, lo, hi int) Finding {
	var hits []hit
	var descs []string
	denials := map[string]bool{}
	for i := lo; i < hi; i++ {
		fh := st.hits(i, agent)
		hits = append(hits, fh...)
		descs = append(descs, st.desc(i))
		denials[fh[0].id] = true
	}
	return a.r.newFinding(agent, hits, map[string]string{
		"denials": strconv.Itoa(len(denials)), "routes": strconv.Itoa(hi - lo), "detail": listValues(descs, described),
	})
}
