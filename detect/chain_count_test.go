package detect_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// bursts is an inner correlation: three denials within a minute.
func bursts() *detect.Rule {
	return &detect.Rule{ID: "bursts", Title: "bursts", Severity: "low", Phase: "detect", Explain: "{{count}}",
		Query: []string{"decision:deny"}, Correlation: detect.Correlation{Type: detect.EventCount,
			Window: time.Minute, Condition: detect.Condition{Gte: detect.Num(3)}}}
}

// An event_count over another correlation counts its findings, each one
// event at its end; the chain's finding holds every event of the
// findings it counted.
func TestEventCountOverCorrelation(t *testing.T) {
	deny := []string{"decision", "deny"}
	evs := cat(
		// a: two bursts five minutes apart: two matches within 10m
		series("a", "tool_call", 0, 10, 3, deny...), series("a", "tool_call", 300, 10, 3, deny...),
		// b: one burst, and two denials that are not one
		series("b", "tool_call", 0, 10, 3, deny...), series("b", "tool_call", 300, 10, 2, deny...),
		// c: two bursts twenty minutes apart
		series("c", "tool_call", 0, 10, 3, deny...), series("c", "tool_call", 1200, 10, 3, deny...),
	)
	r := detect.Rule{Explain: "{{count}} bursts", Correlation: detect.Correlation{Type: detect.EventCount,
		Window: 10 * time.Minute, Condition: detect.Condition{Gte: detect.Num(2)},
		Steps: []detect.Step{{Name: "bursts", Rule: bursts()}}}}
	fs := run(t, r, evs)
	if got := summary(fs); got != "a:6" {
		t.Fatalf("findings %s, want a:6", got)
	}
	if f := fs[0]; f.Explanation != "2 bursts" || !f.Start.Equal(t0) || f.End != t0.Add(320*time.Second) {
		t.Errorf("finding %q %s–%s, want 2 bursts from t0 to t0+320s", f.Explanation, f.Start, f.End)
	}
	// neq is judged on the window's final number of matches: a's two
	// bursts are the excluded number, c's one in each window is not
	r.Correlation.Condition = detect.Condition{Neq: detect.Num(2)}
	// (findings come in the ranking's order: c has two episodes)
	if got := summary(run(t, r, evs)); got != "c:3 c:3 b:3" {
		t.Errorf("neq 2: findings %s, want c:3 c:3 b:3", got)
	}
}

// hostKeys groups events by agent and host ("a|x.example"); as a chain's
// Keys it regroups such a group by agent, the host being its value.
type hostKeys struct{}

func (hostKeys) Key(_ int, ev *evidence.Event) string {
	if ev.Agent == "" || ev.DstHost == "" {
		return ""
	}
	return ev.Agent + "|" + ev.DstHost
}
func (hostKeys) MarshalText() ([]byte, error) { return []byte("agent|dst_host"), nil }

type byAgent struct{}

func (byAgent) Key(_ int, ev *evidence.Event) string { return ev.Agent }
func (byAgent) MarshalText() ([]byte, error)         { return []byte("agent"), nil }
func (byAgent) Regroup(_ int, g string) (string, string, bool) {
	agent, host, ok := strings.Cut(g, "|")
	return agent, host, ok
}

// A value_count over another correlation grouped by more counts the
// distinct values of the field the named correlation groups by besides
// its own: hosts with a burst of denials, per agent.
func TestValueCountOverCorrelationRegroups(t *testing.T) {
	at := func(agent string, from float64, host string) []evidence.Event {
		return series(agent, "net_request", from, 10, 3, "decision", "deny", "dst_host", host)
	}
	evs := cat(
		at("a", 0, "x.example"), at("a", 100, "y.example"), // two hosts: a hit
		at("b", 0, "x.example"), at("b", 300, "x.example"), // one host twice: none
		at("c", 0, "x.example"), at("c", 3600, "y.example"), // an hour apart: none
	)
	inner := bursts()
	inner.Correlation.Keys = hostKeys{}
	inner.Correlation.GroupBy = "dst_host"
	r := detect.Rule{Explain: "{{distinct}} {{values}}", Correlation: detect.Correlation{Type: detect.ValueCount,
		Field: "dst_host", Window: 10 * time.Minute, Condition: detect.Condition{Gte: detect.Num(2)}, Keys: byAgent{},
		Steps: []detect.Step{{Name: "bursts", Rule: inner}}}}
	fs := run(t, r, evs)
	if got := summary(fs); got != "a:6" {
		t.Fatalf("findings %s, want a:6", got)
	}
	if fs[0].Explanation != "2 x.example, y.example" {
		t.Errorf("explanation %q", fs[0].Explanation)
	}
}

// A counting correlation takes other correlations as steps, never
// queries; other types take no such steps.
func TestCountingStepsAreCorrelations(t *testing.T) {
	for _, c := range []struct {
		typ  string
		step detect.Step
		want string
	}{
		{detect.EventCount, detect.Step{Name: "q", Query: "tool:a"}, "steps belong to ordered_sequence and temporal only"},
		{detect.Rate, detect.Step{Name: "r", Rule: bursts()}, "steps belong to ordered_sequence and temporal only"},
	} {
		r := detect.Rule{ID: "t", Title: "t", Severity: "high", Phase: "detect", Explain: "{{count}}",
			Correlation: detect.Correlation{Type: c.typ, Window: time.Minute, Condition: detect.Condition{Gte: detect.Num(1)},
				Steps: []detect.Step{c.step}}}
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.typ, err, c.want)
		}
	}
}
