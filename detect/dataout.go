package detect

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// dataOut is data_exfiltration: the bytes an agent sent to one destination
// within the window, where its session's allowlist does not name that
// destination exactly (admitted by a wildcard only, or not at all). It is
// Go because the allowlist is data of the agent's session_start, and
// because one transfer is often seen by several sources (the ledger's
// net_event, the proxy, an egress gateway): each source's bytes are summed
// apart and the largest view counts, never their sum. The condition bounds
// those bytes.
type dataOut struct {
	r     *Rule
	e     *env
	sends map[string][]send // agent + destination
	// made is each agent and destination's findings as done last made
	// them, of how many sends (they only grow: see adaptation's)
	made map[string]madeOf
}

type send struct {
	h      hit
	source string
	bytes  int64
	method string
	allow  string // wildcard or none
}

func newDataOut(r *Rule, e *env) *dataOut {
	return &dataOut{r: r, e: e, sends: map[string][]send{}, made: map[string]madeOf{}}
}

func (d *dataOut) add(_ int, ev *evidence.Event) {
	dest := strings.ToLower(destination(ev))
	if ev.Agent == "" || dest == "" || ev.BytesOut <= 0 || isDenied(ev) {
		return
	}
	if i := strings.LastIndexByte(dest, ':'); i > 0 && !strings.Contains(dest[:i], ":") {
		dest = dest[:i]
	}
	allow := "none"
	if s := d.e.sessionAt(ev.Agent, ev.Time); s != nil {
		exact, wild := allowed(s.egress, dest)
		if exact {
			return
		}
		if wild {
			allow = "wildcard"
		}
	}
	k := ev.Agent + "\x00" + dest
	d.sends[k] = append(d.sends[k], send{h: hit{t: ev.Time, id: ev.ID, agent: ev.Agent}, source: ev.Source,
		bytes: ev.BytesOut, method: ev.Method, allow: allow})
}

func (d *dataOut) done() []Finding {
	var out []Finding
	for _, k := range sortedKeys(d.sends) {
		agent, dest, _ := strings.Cut(k, "\x00")
		list := d.sends[k]
		if m, ok := d.made[k]; ok && m.n == len(list) {
			out = append(out, m.fs...)
			continue
		}
		from := len(out)
		sort.SliceStable(list, func(i, j int) bool { return list[i].h.t.Before(list[j].h.t) })
		times := make([]time.Time, len(list))
		for i, s := range list {
			times[i] = s.h.t
		}
		for _, ep := range episodes(times, d.r.Correlation.Window) {
			run := list[ep[0]:ep[1]]
			by := map[string]int64{}
			var methods []string
			var hits []hit
			for _, s := range run {
				by[s.source] += s.bytes
				if s.method != "" {
					methods = appendNew(methods, s.method)
				}
				hits = append(hits, s.h)
			}
			var bytes int64
			seenBy := ""
			for _, src := range sortedKeys(by) {
				if by[src] > bytes {
					bytes, seenBy = by[src], src
				}
			}
			if !d.r.Correlation.Condition.Holds(float64(bytes)) {
				continue
			}
			out = append(out, withValues(d.r.newFinding(agent, hits, map[string]string{
				"bytes": humanBytes(bytes), "destination": dest, "allowlist": run[0].allow,
				"methods": strings.Join(methods, ", "), "seen_by": seenBy,
			}), []string{dest}))
		}
		d.made[k] = madeOf{len(list), slices.Clip(out[from:])}
	}
	return out
}

// SizeText writes a byte count the way a responder reads it, in one unit
// system everywhere cordon writes sizes (IEC, powers of 1024): "230.1 MiB".
func SizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// humanBytes is SizeText with the exact count, for a finding's text.
func humanBytes(n int64) string {
	if n < 1<<10 {
		return SizeText(n)
	}
	return fmt.Sprintf("%s (%d bytes)", SizeText(n), n)
}
