package detect

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// escalation is tool_escalation: an agent reaching for more capable tools
// than it was given or than it was just refused with. It is Go because it
// judges a call against the agent's session grant (tools_allowed) and
// against the target of an earlier refused call.
//
//   - a call to a tool outside the session's tools_allowed;
//   - a refused call followed within the window by a call naming the same
//     path or host through a more capable tool or program: a read-only
//     tool redone by a write or exec tool (read_file of a secret refused,
//     then bash cat of it), or a specific program redone by a general
//     interpreter (nc refused, then python3 -c with a raw socket);
//   - after a refusal, a command that bypasses the proxy (--noproxy,
//     NO_PROXY=, unset http_proxy);
//   - a host the proxy refused to a specific program's call (curl), then
//     connected to directly by an interpreter, as a runtime sensor saw it:
//     the connection names the host, or an address a source observed
//     serve it (addrBook: a DNS answer, the proxy's own record of the
//     host), never one the agent's text gave.
//
// Going from reading to writing and running is what every agent does on a
// normal task, so that alone is not flagged.
type escalation struct {
	r      *Rule
	e      *env
	agents map[string]*escState
}

type escState struct {
	calls   recentCalls
	refused []refusal // refused calls, oldest first
	// byKey are the refused calls of the window per target (path,
	// host) and call id, oldest first; at is the place of a call's last
	// refusal. A call is checked against these rather than against
	// every refusal of the window, which an agent refused thousands of
	// times a window made long.
	byKey    map[string][]refusal
	at       map[*call]int
	n        int // refusals so far
	lastDeny time.Time
	last     *call         // the agent's latest tool call
	proxied  []proxyDenial // the proxy's refusals of its calls, oldest first
	found    []escalated
}

func newEscState() *escState {
	return &escState{calls: newRecentCalls(), byKey: map[string][]refusal{}, at: map[*call]int{}}
}

// escalated is an escalation tool_escalation keeps for its findings, with
// the hits it cites and the tools of the calls it cites (values).
// denial_adaptation and intent_mismatch keep theirs packed (matchList).
type escalated struct {
	t      time.Time
	hits   []hit
	desc   string
	values []string
}

// refusal is a refused call and its place among the agent's refusals.
type refusal struct {
	c *call
	n int
}

// refusalKeys are the keys a refused call is found by: each path and
// host it names (once each) and its call id.
func refusalKeys(c *call) []string {
	keys := make([]string, 0, len(c.paths)+len(c.hosts)+1)
	add := func(k string) {
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, p := range c.paths {
		add("p\x00" + p)
	}
	for _, h := range c.hosts {
		add("h\x00" + h)
	}
	add("c\x00" + c.callID)
	return keys
}

// refuse adds c to the window's refused calls, unless it is there.
func (st *escState) refuse(c *call) {
	if n, ok := st.at[c]; ok && len(st.refused) > 0 && n >= st.refused[0].n {
		return
	}
	st.n++
	r := refusal{c: c, n: st.n}
	st.refused = append(st.refused, r)
	st.at[c] = r.n
	for _, k := range refusalKeys(c) {
		st.byKey[k] = append(st.byKey[k], r)
	}
}

// expire drops the refused calls at the front of the window from before
// from (one refused later stays behind an earlier one still in it).
func (st *escState) expire(from time.Time) {
	for len(st.refused) > 0 && st.refused[0].c.t.Before(from) {
		r := st.refused[0]
		st.refused = st.refused[1:]
		if st.at[r.c] == r.n {
			delete(st.at, r.c)
		}
		for _, k := range refusalKeys(r.c) {
			if list := st.byKey[k]; len(list) > 0 && list[0].n == r.n {
				if len(list) == 1 {
					delete(st.byKey, k)
				} else {
					st.byKey[k] = list[1:]
				}
			}
		}
	}
}

// expireAll drops what the window has passed: refused calls, calls,
// the proxy's refusals.
func (st *escState) expireAll(from time.Time) {
	st.expire(from)
	st.calls.expire(from)
	if st.last != nil && st.last.t.Before(from) {
		st.last = nil // a proxy refusal is tied to a call a minute before it
	}
	for len(st.proxied) > 0 && st.proxied[0].t.Before(from) {
		st.proxied = st.proxied[1:]
	}
}

// lastRefusedLike is the window's latest refused call other than c (by
// call id) that names a path or host c names, or that c retries.
func (st *escState) lastRefusedLike(c *call) *call {
	if len(st.refused) == 0 {
		return nil
	}
	start := st.refused[0].n
	var last refusal
	look := func(k string) {
		list := st.byKey[k]
		for i := len(list) - 1; i >= 0 && list[i].n >= start; i-- {
			if list[i].c.callID == c.callID {
				continue
			}
			if list[i].n > last.n {
				last = list[i]
			}
			return
		}
	}
	for _, p := range c.paths {
		look("p\x00" + p)
	}
	for _, h := range c.hosts {
		look("h\x00" + h)
	}
	if c.retryOf != "" {
		look("c\x00" + c.retryOf)
	}
	return last.c
}

// proxyDenial is a refusal by the proxy of a host, taken to be the doing
// of the tool call just before it (within callLink).
type proxyDenial struct {
	t    time.Time
	id   string
	host string
	port int
	c    *call
}

// Tool classes.
const (
	classRead  = "read"
	classWrite = "write"
	classExec  = "exec"
)

func toolClass(c *call) string {
	t := strings.ToLower(c.tool)
	has := func(words ...string) bool {
		for _, w := range words {
			if strings.Contains(t, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("bash", "shell", "exec", "run", "python", "terminal", "submit", "command", "code", "computer"):
		return classExec
	case has("write", "edit", "create", "put", "delete", "patch", "update", "upload", "move"):
		return classWrite
	case c.readOnly || has("read", "list", "get", "search", "view", "status", "find", "grep"):
		return classRead
	}
	return classExec
}

// interpreter reports a program that runs arbitrary code.
func interpreter(bin string) bool {
	for _, p := range []string{"python", "node", "perl", "ruby", "php", "bash", "sh", "zsh", "deno", "bun", "lua"} {
		if bin == p || strings.HasPrefix(bin, p) && strings.Trim(bin[len(p):], "0123456789.") == "" {
			return true
		}
	}
	return strings.HasSuffix(bin, ".py") || strings.HasSuffix(bin, ".sh")
}

// mayBypass is bypassRe's cheap test: each of its forms names a proxy,
// in any case.
func mayBypass(cmd string) bool {
	for i := strings.IndexAny(cmd, "pP"); i >= 0 && i+5 <= len(cmd); {
		if strings.EqualFold(cmd[i:i+5], "proxy") {
			return true
		}
		j := strings.IndexAny(cmd[i+1:], "pP")
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

var bypassRe = regexp.MustCompile(`--noproxy|(?i:no_proxy)=|unset\s+(?i:https?_proxy|all_proxy)|env\s+-u\s*(?i:https?_proxy)`)

// escalates says how c is more capable than the refused call r, or "".
func escalates(r, c *call) string {
	switch rc, cc := toolClass(r), toolClass(c); {
	case rc == classRead && cc != classRead:
		return describe(c)
	case cc == classExec && interpreter(c.bin) && !interpreter(r.bin) && r.bin != c.bin:
		return describe(c)
	}
	return ""
}

func newEscalation(r *Rule, e *env) *escalation {
	return &escalation{r: r, e: e, agents: map[string]*escState{}}
}

func (x *escalation) add(_ int, ev *evidence.Event) {
	if ev.Agent == "" {
		return
	}
	st := x.agents[ev.Agent]
	if st == nil {
		st = newEscState()
		x.agents[ev.Agent] = st
	}
	from := ev.Time.Add(-x.r.Correlation.Window)
	st.expireAll(from)
	switch {
	case ev.Kind == evidence.KindToolCall:
		c := x.e.call(ev)
		st.last = c
		st.calls.add(c)
		h := hit{t: c.t, id: c.id, agent: c.agent}
		if s := x.e.sessionAt(ev.Agent, ev.Time); s != nil && len(s.tools) > 0 && c.tool != "" && !contains(s.tools, c.tool) {
			st.found = append(st.found, escalated{t: c.t, hits: []hit{h}, values: callTools(c),
				desc: fmt.Sprintf("%s (%s) is not in tools_allowed [%s]", c.tool, c.callID, strings.Join(s.tools, ", "))})
		}
		// the latest refused call c shares a target with or retries
		if r := st.lastRefusedLike(c); r != nil {
			target := sharedTarget(r, c)
			if target == "" { // c retries r
				target = "its target"
				if t := append(append([]string{}, r.hosts...), r.paths...); len(t) > 0 {
					target = t[0]
				}
			}
			if how := escalates(r, c); how != "" {
				st.found = append(st.found, escalated{t: c.t, hits: []hit{{t: r.t, id: r.id, agent: r.agent}, h}, values: callTools(r, c),
					desc: fmt.Sprintf("%s of %s refused (%s), then %s (%s)", describe(r), target, r.callID, how, c.callID)})
			}
		}
		if !st.lastDeny.IsZero() && !st.lastDeny.Before(from) && mayBypass(ev.Cmdline) && bypassRe.MatchString(ev.Cmdline) {
			st.found = append(st.found, escalated{t: c.t, hits: []hit{h}, values: callTools(c),
				desc: fmt.Sprintf("bypasses the proxy after a refusal (%s)", c.callID)})
		}
	case isDenied(ev):
		st.lastDeny = ev.Time
		if c := st.calls.get(ev.CallID); c != nil {
			st.refuse(c)
		}
		if ev.Source == evidence.SourceProxy && ev.CallID == "" && st.last != nil && ev.Time.Sub(st.last.t) <= callLink {
			if host := destination(ev); host != "" {
				st.proxied = append(st.proxied, proxyDenial{t: ev.Time, id: ev.ID, host: host, port: ev.DstPort, c: st.last})
			}
		}
	case ev.Kind == evidence.KindNetConnect && ev.Source == evidence.SourceSensor:
		x.direct(st, ev)
	}
}

// direct judges a connection a sensor saw (the proxy never did) against
// the proxy's refusals: a host refused to a specific program's call,
// then reached directly by an interpreter. The connection is the refused
// host's when it names that host, or names an address a source observed
// serve it (addrBook); never on what the agent wrote.
func (x *escalation) direct(st *escState, ev *evidence.Event) {
	if len(st.proxied) == 0 {
		return // most connections: nothing refused lately
	}
	bin := procBin(ev.Cmdline)
	if !interpreter(bin) {
		return
	}
	host := destination(ev)
	for i := len(st.proxied) - 1; i >= 0; i-- {
		d := st.proxied[i]
		via := ""
		switch {
		case d.host == host:
		case addressOnly(ev) && d.host != ev.DstIP:
			t := x.e.addrs.tieOf(ev.DstIP, d.host)
			if t == nil {
				continue
			}
			via = ", " + t.says(ev.DstIP)
		default:
			continue
		}
		if interpreter(d.c.bin) || d.c.bin == bin {
			return
		}
		st.found = append(st.found, escalated{t: ev.Time, values: callTools(d.c),
			hits: []hit{{t: d.c.t, id: d.c.id, agent: d.c.agent}, {t: d.t, id: d.id, agent: ev.Agent}, {t: ev.Time, id: ev.ID, agent: ev.Agent}},
			desc: fmt.Sprintf("%s of %s refused by the proxy (%s), then %s connected to %s directly%s",
				describe(d.c), d.host+portSuffix(d.port), d.c.callID, bin, destination(ev)+portSuffix(ev.DstPort), via)})
		return
	}
}

// procBin is the base name of the program a sensor's command line (its
// binary, then its arguments) runs.
func procBin(cmdline string) string {
	s := strings.TrimLeft(cmdline, " \t")
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return ""
	}
	return path.Base(s)
}

// callTools are the tools of the calls an escalation cites, in the order
// it cites them, as the finding lists them: a call's with a call id (one
// the gateway answers).
func callTools(calls ...*call) []string {
	var tools []string
	for _, c := range calls {
		if c.callID != "" {
			tools = append(tools, c.tool)
		}
	}
	return tools
}

// sharedTarget is a path or host both calls name.
func sharedTarget(a, b *call) string {
	for _, p := range a.paths {
		if contains(b.paths, p) {
			return p
		}
	}
	for _, h := range a.hosts {
		if contains(b.hosts, h) {
			return h
		}
	}
	return ""
}

func (x *escalation) done() []Finding {
	var out []Finding
	for _, agent := range sortedKeys(x.agents) {
		found := x.agents[agent].found
		for _, run := range runs(x.r, found, func(x escalated) time.Time { return x.t }) {
			var hits []hit
			var descs, tools []string
			for _, f := range run {
				hits = append(hits, f.hits...)
				descs = append(descs, f.desc)
			}
			for _, f := range run {
				for _, t := range f.values {
					tools = appendNew(tools, t)
				}
			}
			out = append(out, withValues(x.r.newFinding(agent, hits, map[string]string{
				"tools": strings.Join(tools, ", "), "detail": listValues(descs, 3),
				"count": strconv.Itoa(len(run)),
			}), tools))
		}
	}
	return out
}
