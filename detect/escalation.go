package detect

import (
	"fmt"
	"regexp"
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
//     NO_PROXY=, unset http_proxy).
//
// Going from reading to writing and running is what every agent does on a
// normal task, so that alone is not flagged.
type escalation struct {
	r      *Rule
	e      *env
	agents map[string]*escState
}

type escState struct {
	calls    map[string]*call
	refused  []*call // refused calls, oldest first
	lastDeny time.Time
	found    []adapted
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
		st = &escState{calls: map[string]*call{}}
		x.agents[ev.Agent] = st
	}
	from := ev.Time.Add(-x.r.Correlation.Window)
	for len(st.refused) > 0 && st.refused[0].t.Before(from) {
		st.refused = st.refused[1:]
	}
	switch {
	case ev.Kind == evidence.KindToolCall:
		c := x.e.call(ev)
		if c.callID != "" {
			st.calls[c.callID] = c
		}
		h := hit{t: c.t, id: c.id, agent: c.agent}
		if s := x.e.sessionAt(ev.Agent, ev.Time); s != nil && len(s.tools) > 0 && c.tool != "" && !contains(s.tools, c.tool) {
			st.found = append(st.found, adapted{t: c.t, hits: []hit{h},
				desc: fmt.Sprintf("%s (%s) is not in tools_allowed [%s]", c.tool, c.callID, strings.Join(s.tools, ", "))})
		}
		for i := len(st.refused) - 1; i >= 0; i-- {
			r := st.refused[i]
			if r.callID == c.callID {
				continue
			}
			target := sharedTarget(r, c)
			if target == "" && c.retryOf == r.callID {
				target = "its target"
				if t := append(append([]string{}, r.hosts...), r.paths...); len(t) > 0 {
					target = t[0]
				}
			}
			if target != "" {
				if how := escalates(r, c); how != "" {
					st.found = append(st.found, adapted{t: c.t, hits: []hit{{t: r.t, id: r.id, agent: r.agent}, h},
						desc: fmt.Sprintf("%s of %s refused (%s), then %s (%s)", describe(r), target, r.callID, how, c.callID)})
				}
				break
			}
		}
		if !st.lastDeny.IsZero() && !st.lastDeny.Before(from) && bypassRe.MatchString(ev.Cmdline) {
			st.found = append(st.found, adapted{t: c.t, hits: []hit{h},
				desc: fmt.Sprintf("bypasses the proxy after a refusal (%s)", c.callID)})
		}
	case isDenied(ev):
		st.lastDeny = ev.Time
		if c := st.calls[ev.CallID]; c != nil && !containsCall(st.refused, c) {
			st.refused = append(st.refused, c)
		}
	}
}

func containsCall(list []*call, c *call) bool {
	for _, x := range list {
		if x == c {
			return true
		}
	}
	return false
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
		for _, run := range runs(x.r, found, func(x adapted) time.Time { return x.t }) {
			var hits []hit
			var descs, tools []string
			for _, f := range run {
				hits = append(hits, f.hits...)
				descs = append(descs, f.desc)
			}
			for _, h := range hits {
				for _, c := range x.agents[agent].calls {
					if c.id == h.id {
						tools = appendNew(tools, c.tool)
					}
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
