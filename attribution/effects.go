package attribution

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Bounds of the link between a ledger tool call and what it did on the
// host and the network.
const (
	// effectStart is how soon after the call its process must start.
	effectStart = 5 * time.Second
	// effectMax bounds how long a call's effects are followed when its
	// result does not say when it ended.
	effectMax = 10 * time.Minute
	// maxEffectEvents bounds the events read for one call.
	maxEffectEvents = 2000
)

// ToolEffects follows a ledger tool call into the other layers: the
// process the sandbox started for it (a sensor exec whose command line
// holds the call's command), that process's descendants and their
// connections (by exec id), and the proxy requests to hosts the command
// names, from the call until its result (or effectMax). It returns no
// events for a call that ran no command.
func ToolEffects(ctx context.Context, st evidence.Reader, call evidence.Event) ([]evidence.Event, error) {
	cmd := normalizeCmd(call.Cmdline)
	if call.Agent == "" || cmd == "" || call.Source != evidence.SourceLedger {
		return nil, nil
	}
	until := call.Time.Add(effectMax)
	if call.CallID != "" {
		res, err := st.Search(ctx, evidence.Request{Query: evidence.And(evidence.Term("call_id", call.CallID), evidence.Term("kind", evidence.KindToolResult)), Limit: 1})
		if err != nil {
			return nil, err
		}
		if len(res.Events) > 0 && res.Events[0].Time.After(call.Time) {
			until = res.Events[0].Time.Add(time.Second)
		}
	}
	hits, err := st.Search(ctx, evidence.Request{
		Query: evidence.And(evidence.Term("agent", call.Agent), evidence.Not(evidence.Term("source", evidence.SourceLedger))),
		Since: call.Time, Until: until, Sort: evidence.SortTime, Limit: maxEffectEvents,
	})
	if err != nil {
		return nil, fmt.Errorf("effects of %s: %w", call.ID, err)
	}
	tree := map[string]bool{}
	var out []evidence.Event
	for _, ev := range hits.Events {
		switch {
		case ev.Source == evidence.SourceSensor && ev.ExecID != "" && (tree[ev.ExecID] || tree[ev.ParentExecID]):
			tree[ev.ExecID] = true
		case ev.Source == evidence.SourceSensor && ev.Kind == evidence.KindProcExec && ev.Time.Sub(call.Time) <= effectStart && runsCommand(ev.Cmdline, cmd):
			if ev.ExecID != "" {
				tree[ev.ExecID] = true
			}
		case ev.Source == evidence.SourceSensor && ev.ExecID == "" && ev.Cmdline != "" && strings.Contains(cmd, normalizeCmd(ev.Cmdline)):
			// a sensor without process ids (Falco): its command line is
			// part of the call's command
		case ev.Source == evidence.SourceProxy && namesDestination(cmd, ev):
		default:
			continue
		}
		out = append(out, ev)
	}
	return out, nil
}

// ToolCause finds the ledger tool call whose effects include ev (a sensor
// or proxy event), looking back effectMax from it, nearest call first.
func ToolCause(ctx context.Context, st evidence.Reader, ev evidence.Event) (evidence.Event, bool, error) {
	if ev.Agent == "" || ev.Source == evidence.SourceLedger {
		return evidence.Event{}, false, nil
	}
	calls, err := st.Search(ctx, evidence.Request{
		Query: evidence.And(evidence.Term("agent", ev.Agent), evidence.Term("kind", evidence.KindToolCall)),
		Since: ev.Time.Add(-effectMax), Until: ev.Time.Add(time.Nanosecond), Sort: evidence.SortTimeDesc, Limit: 20,
	})
	if err != nil {
		return evidence.Event{}, false, err
	}
	for _, c := range calls.Events {
		if c.Cmdline == "" {
			continue
		}
		effects, err := ToolEffects(ctx, st, c)
		if err != nil {
			return evidence.Event{}, false, err
		}
		if containsID(effects, ev.ID) {
			return c, true, nil
		}
	}
	return evidence.Event{}, false, nil
}

// runsCommand reports whether a process command line runs the command: a shell
// wrapper holding it whole (bash -lc "…"), or the same program with the
// same first argument.
func runsCommand(cmdline, cmd string) bool {
	c := normalizeCmd(cmdline)
	if c == "" {
		return false
	}
	if strings.Contains(c, cmd) {
		return true
	}
	a, b := strings.Fields(c), strings.Fields(cmd)
	if path.Base(a[0]) != path.Base(b[0]) {
		return false
	}
	return len(a) == 1 || len(b) == 1 || a[1] == b[1]
}

// namesDestination reports whether the command names the proxy event's destination.
func namesDestination(cmd string, ev evidence.Event) bool {
	for _, h := range []string{ev.DstHost, ev.DstIP} {
		if len(h) > 3 && strings.Contains(cmd, strings.ToLower(h)) {
			return true
		}
	}
	return false
}

// normalizeCmd lowercases a command line, drops quotes and squeezes
// whitespace, so that a shell's quoting of the same command still matches.
func normalizeCmd(s string) string {
	s = strings.NewReplacer(`"`, "", `'`, "", `\`, "").Replace(strings.ToLower(s))
	return strings.Join(strings.Fields(s), " ")
}
