package detect

import (
	"strconv"

	"github.com/cordon-ir/cordon/evidence"
)

// divergence is plan_divergence: a stretch in which most of an agent's
// tool calls are off its plan. It is Go because "off plan" is judged
// against the agent's own session: the working directory its objective
// names and its egress allowlist. Kept simple so a responder can check
// each call by eye; a call is off plan when it
//
//   - names an absolute path outside the objective's working directory
//     and outside the system's own directories (/tmp, /usr, /bin, /dev,
//     /proc/self, ...), such as ~/.netrc or /run/secrets/...;
//   - names a host or IP literal its allowlist does not admit;
//   - was refused: by the tool gateway, or by the proxy within a minute
//     and before the agent's next call.
//
// The condition bounds the off-plan calls within the window, and more
// than half of the agent's calls in that stretch must be off plan.
type divergence struct {
	r      *Rule
	e      *env
	agents map[string]*divState
}

type divState struct {
	calls  []*planCall
	byCall map[string]*planCall
}

type planCall struct {
	c       *call
	reasons []string
	denials []hit
}

func newDivergence(r *Rule, e *env) *divergence {
	return &divergence{r: r, e: e, agents: map[string]*divState{}}
}

// systemDirs are where a command line names programs and scratch files.
func systemDirs() []string {
	return []string{"/tmp", "/var/tmp", "/usr", "/bin", "/sbin", "/lib", "/dev/null", "/dev/stdout", "/dev/stderr", "/proc/self", "/opt/conda"}
}

func (d *divergence) add(_ int, ev *evidence.Event) {
	if ev.Agent == "" {
		return
	}
	st := d.agents[ev.Agent]
	if st == nil {
		st = &divState{byCall: map[string]*planCall{}}
		d.agents[ev.Agent] = st
	}
	if ev.Kind == evidence.KindToolCall && ev.Source == evidence.SourceLedger {
		pc := &planCall{c: d.e.call(ev)}
		pc.reasons = d.offPlan(pc.c)
		st.calls = append(st.calls, pc)
		if pc.c.callID != "" {
			st.byCall[pc.c.callID] = pc
		}
		return
	}
	if !isDenied(ev) {
		return
	}
	pc := st.byCall[ev.CallID]
	if pc == nil && ev.Source != evidence.SourceLedger && len(st.calls) > 0 {
		if last := st.calls[len(st.calls)-1]; ev.Time.Sub(last.c.t) <= callLink {
			pc = last
		}
	}
	if pc != nil {
		if len(pc.denials) == 0 {
			pc.reasons = append(pc.reasons, "refused")
		}
		pc.denials = append(pc.denials, hit{t: ev.Time, id: ev.ID, agent: ev.Agent})
	}
}

// offPlan lists why a call is off the agent's plan (nil: on plan).
func (d *divergence) offPlan(c *call) []string {
	s := d.e.sessionAt(c.agent, c.t)
	if s == nil {
		return nil
	}
	var why []string
	for _, p := range c.paths {
		if underDir(p, s.workdir) {
			continue
		}
		system := false
		for _, dir := range systemDirs() {
			system = system || underDir(p, dir)
		}
		if !system {
			why = append(why, p)
		}
	}
	for _, h := range c.hosts {
		if exact, wild := allowed(s.egress, h); !exact && !wild {
			why = append(why, h)
		}
	}
	return why
}

func (d *divergence) done() []Finding {
	var out []Finding
	window := d.r.Correlation.Window
	for _, agent := range sortedKeys(d.agents) {
		calls := d.agents[agent].calls
		start, epStart, off := 0, -1, 0 // off: off-plan calls in [start, i]
		flush := func(end int) {
			if epStart < 0 {
				return
			}
			run := calls[epStart:end]
			var hits []hit
			var vals []string
			n := 0
			for _, pc := range run {
				if len(pc.reasons) == 0 {
					continue
				}
				n++
				hits = append(hits, hit{t: pc.c.t, id: pc.c.id, agent: agent})
				hits = append(hits, pc.denials...)
				for _, r := range pc.reasons {
					vals = appendNew(vals, r)
				}
			}
			workdir := "its working directory"
			if s := d.e.sessionAt(agent, run[0].c.t); s != nil && s.workdir != "" {
				workdir = s.workdir
			}
			out = append(out, withValues(d.r.newFinding(agent, hits, map[string]string{
				"count": strconv.Itoa(n), "calls": strconv.Itoa(len(run)),
				"workdir": workdir, "values": listValues(vals, 4),
			}), vals))
			epStart = -1
		}
		for i, pc := range calls {
			if len(pc.reasons) > 0 {
				off++
			}
			for calls[i].c.t.Sub(calls[start].c.t) > window {
				if len(calls[start].reasons) > 0 {
					off--
				}
				start++
			}
			total := i - start + 1
			if d.r.Correlation.Condition.Holds(float64(off)) && 2*off > total {
				if epStart < 0 {
					epStart = start
				}
			} else {
				flush(i)
			}
		}
		flush(len(calls))
	}
	return out
}
