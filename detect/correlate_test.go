package detect_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

var t0 = time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)

// mk builds an event at t0+sec seconds: agent, kind, then field=value
// pairs (decision, dst_host, tool, cmdline).
func mk(sec float64, agent, kind string, kv ...string) evidence.Event {
	ev := evidence.Event{Time: t0.Add(time.Duration(sec * float64(time.Second))), Agent: agent, Kind: kind,
		Source: evidence.SourceLedger}
	for i := 0; i+1 < len(kv); i += 2 {
		switch kv[i] {
		case "decision":
			ev.Decision = kv[i+1]
		case "dst_host":
			ev.DstHost = kv[i+1]
		case "tool":
			ev.Tool = kv[i+1]
		case "cmdline":
			ev.Cmdline = kv[i+1]
		default:
			panic("mk: " + kv[i])
		}
	}
	ev.ID = fmt.Sprintf("e%05.0f-%s-%s", sec*10, agent, kind)
	return ev
}

func run(t *testing.T, r detect.Rule, evs []evidence.Event) []detect.Finding {
	t.Helper()
	if r.Title == "" {
		r.ID, r.Title, r.Severity, r.Phase = "test-rule", "test", "high", "detect"
	}
	if r.Explain == "" {
		r.Explain = "{{count}} in {{span}}"
	}
	eng := detect.Engine{Rules: []detect.Rule{r}}
	fs, err := eng.Run(context.Background(), detect.NewMemSource(evs))
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// summary renders findings as "agent:count" for comparison.
func summary(fs []detect.Finding) string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s:%d", f.Agent, len(f.Events)))
	}
	return strings.Join(out, " ")
}

func series(agent, kind string, from, step float64, n int, kv ...string) []evidence.Event {
	var out []evidence.Event
	for i := 0; i < n; i++ {
		ev := mk(from+float64(i)*step, agent, kind, kv...)
		ev.ID = fmt.Sprintf("%s-from%g-%d", ev.ID, from, i)
		out = append(out, ev)
	}
	return out
}

func cat(lists ...[]evidence.Event) []evidence.Event {
	var out []evidence.Event
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func TestEventCount(t *testing.T) {
	rule := detect.Rule{Query: []string{"+decision:deny"}, Correlation: detect.Correlation{
		Type: detect.EventCount, Window: 5 * time.Minute, Condition: detect.Condition{Gte: detect.Num(5)}}}
	deny := []string{"decision", "deny"}
	for _, c := range []struct {
		name string
		evs  []evidence.Event
		want string
	}{
		{"four in the window", series("a", "tool_result", 0, 30, 4, deny...), ""},
		{"five in the window", series("a", "tool_result", 0, 30, 5, deny...), "a:5"},
		{"five spread wider than the window", series("a", "tool_result", 0, 100, 5, deny...), ""},
		{"a burst grows while it holds", series("a", "tool_result", 0, 10, 8, deny...), "a:8"},
		{"two bursts", cat(series("a", "tool_result", 0, 1, 5, deny...), series("a", "tool_result", 1000, 1, 6, deny...)), "a:5 a:6"},
		{"per agent", cat(series("a", "tool_result", 0, 2, 3, deny...), series("b", "tool_result", 1, 2, 3, deny...)), ""},
		{"no agent, no group", series("", "tool_result", 0, 1, 9, deny...), ""},
		{"only matching events", series("a", "tool_result", 0, 1, 9, "decision", "allow"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := summary(run(t, rule, c.evs)); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestValueCount(t *testing.T) {
	rule := detect.Rule{Query: []string{"+decision:deny"}, Explain: "{{distinct}} hosts: {{values}}", Correlation: detect.Correlation{
		Type: detect.ValueCount, Field: "dst_host", Window: 10 * time.Minute, Condition: detect.Condition{Gte: detect.Num(3)}}}
	host := func(sec float64, h string) evidence.Event {
		return mk(sec, "a", "net_request", "decision", "deny", "dst_host", h)
	}
	for _, c := range []struct {
		name, want, explain string
		evs                 []evidence.Event
	}{
		{"one host many times", "", "", series("a", "net_request", 0, 1, 9, "decision", "deny", "dst_host", "x.org")},
		{"three hosts", "a:4", "3 hosts: x.org, y.org, z.org", []evidence.Event{host(0, "x.org"), host(1, "X.ORG"), host(2, "y.org"), host(3, "z.org")}},
		{"hosts spread out", "", "", []evidence.Event{host(0, "x.org"), host(601, "y.org"), host(1202, "z.org")}},
		{"no host, not counted", "", "", cat(series("a", "tool_result", 0, 1, 5, "decision", "deny"), []evidence.Event{host(9, "x.org"), host(9, "y.org")})},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := run(t, rule, c.evs)
			if got := summary(fs); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if c.explain != "" && fs[0].Explanation != c.explain {
				t.Errorf("explanation %q, want %q", fs[0].Explanation, c.explain)
			}
		})
	}
}

func TestOrderedSequence(t *testing.T) {
	rule := detect.Rule{Explain: "{{steps}} x{{sequences}}", Correlation: detect.Correlation{
		Type: detect.OrderedSequence, Window: 2 * time.Minute,
		Steps: []detect.Step{{Name: "read", Query: "+kind:cred_access"}, {Name: "send", Query: "+kind:net_request"}}}}
	read := func(sec float64, a string) evidence.Event { return mk(sec, a, "cred_access") }
	send := func(sec float64, a string) evidence.Event { return mk(sec, a, "net_request") }
	for _, c := range []struct {
		name, want, explain string
		evs                 []evidence.Event
	}{
		{"in order", "a:2", "read → send x1", []evidence.Event{read(0, "a"), send(30, "a")}},
		{"out of order", "", "", []evidence.Event{send(0, "a"), read(30, "a")}},
		{"too far apart", "", "", []evidence.Event{read(0, "a"), send(121, "a")}},
		{"other agent", "", "", []evidence.Event{read(0, "a"), send(30, "b")}},
		{"two reads, one send", "a:2", "", []evidence.Event{read(0, "a"), read(10, "a"), send(30, "a")}},
		{"two sequences, one episode", "a:4", "read → send x2", []evidence.Event{read(0, "a"), send(30, "a"), read(60, "a"), send(90, "a")}},
		{"two episodes", "a:2 a:2", "", []evidence.Event{read(0, "a"), send(30, "a"), read(1000, "a"), send(1030, "a")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := run(t, rule, c.evs)
			if got := summary(fs); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if c.explain != "" && fs[0].Explanation != c.explain {
				t.Errorf("explanation %q, want %q", fs[0].Explanation, c.explain)
			}
		})
	}
}

func TestRate(t *testing.T) {
	rule := detect.Rule{Query: []string{"+kind:tool_call"}, Explain: "{{count}} {{ratio}}x own {{baseline}} peers {{peers}}",
		Correlation: detect.Correlation{Type: detect.Rate, Window: time.Minute, MinEvents: 10, Condition: detect.Condition{Gte: detect.Num(5)}}}
	steady := func(agent string) []evidence.Event { return series(agent, "tool_call", 0, 30, 60) } // 2 a minute for 30 minutes
	for _, c := range []struct {
		name, want, explain string
		evs                 []evidence.Event
	}{
		{"steady agents", "", "", cat(steady("a"), steady("b"))},
		{"a burst above own and peers", "a:40", "40 20x own 2.0 peers 2.0", cat(steady("a"), steady("b"), series("a", "tool_call", 600, 0.5, 38))},
		{"a burst below min_events", "", "", cat(steady("a"), steady("b"), series("a", "tool_call", 600, 1, 7))},
		{"busy peers raise the bar", "", "", cat(steady("a"), series("b", "tool_call", 0, 3, 600), series("a", "tool_call", 600, 0.5, 38))},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := run(t, rule, c.evs)
			if got := summary(fs); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if c.explain != "" && fs[0].Explanation != c.explain {
				t.Errorf("explanation %q, want %q", fs[0].Explanation, c.explain)
			}
		})
	}
}

// A rule with several queries selects the union of their events, each
// event once.
func TestQueryAnyOf(t *testing.T) {
	rule := detect.Rule{Query: []string{"+kind:cred_access", "+kind:tool_call +cmdline:printenv", "+kind:cred_access +cmdline:cat"},
		Correlation: detect.Correlation{Type: detect.EventCount, Window: time.Minute, Condition: detect.Condition{Gte: detect.Num(3)}}}
	evs := []evidence.Event{mk(0, "a", "cred_access", "cmdline", "cat ~/.netrc"), mk(1, "a", "tool_call", "cmdline", "printenv"),
		mk(2, "a", "tool_call", "cmdline", "ls"), mk(3, "a", "cred_access")}
	if got := summary(run(t, rule, evs)); got != "a:3" {
		t.Errorf("got %q", got)
	}
}
