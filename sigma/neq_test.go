package sigma

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// neqFindings loads a correlation (its type and condition lines) over
// the proxy members and gives its findings as agent:events.
func neqFindings(t *testing.T, corr string, evs []evidence.Event) []string {
	t.Helper()
	rules := mustLoad(t, `title: Not three
id: 61111111-2222-4333-8444-555555555555
level: high
correlation:
    `+corr+members)
	var got []string
	for _, f := range findingsOf(scan(t, rules, evs), "61111111-2222-4333-8444-555555555555") {
		got = append(got, f.Agent+":"+strings.Join(f.Events, " "))
	}
	slices.Sort(got)
	return got
}

// neq holds on a group whose final count in the timespan differs: three
// denials within the minute are no finding, two or four are one, and a
// running count (which passes 1 and 2 on its way to 3) is not what is
// judged. A window opens at a group's first event and the first event
// past its end opens the next.
func TestCorrelationNeq(t *testing.T) {
	evs := []evidence.Event{
		// agent-1: exactly three: nothing
		denied("a1", "agent-1", 0, "a.example"), denied("a2", "agent-1", 10, "b.example"), denied("a3", "agent-1", 20, "c.example"),
		// agent-2: two
		denied("b1", "agent-2", 0, "a.example"), denied("b2", "agent-2", 10, "a.example"),
		// agent-3: four
		denied("c1", "agent-3", 0, "a.example"), denied("c2", "agent-3", 10, "a.example"),
		denied("c3", "agent-3", 20, "b.example"), denied("c4", "agent-3", 30, "b.example"),
		// agent-4: three within the minute, then one alone minutes later
		denied("d1", "agent-4", 0, "a.example"), denied("d2", "agent-4", 10, "a.example"),
		denied("d3", "agent-4", 20, "a.example"), denied("d4", "agent-4", 300, "a.example"),
	}
	for _, c := range []struct {
		name, corr string
		want       []string
	}{
		{"event_count", `type: event_count
    rules: [denied_request]
    group-by: [agent]
    timespan: 1m
    condition:
        neq: 3`, []string{"agent-2:b1 b2", "agent-3:c1 c2 c3 c4", "agent-4:d4"}},
		// distinct hosts: agent-1 has three, agent-3 two, the others one
		// (agent-4 in each of its windows)
		{"value_count", `type: value_count
    rules: [denied_request]
    group-by: [agent]
    timespan: 1m
    condition:
        field: cs-host
        neq: 1`, []string{"agent-1:a1 a2 a3", "agent-3:c1 c2 c3 c4"}},
		// with a bound beside it: at least two, and not three
		{"event_count gte and neq", `type: event_count
    rules: [denied_request]
    group-by: [agent]
    timespan: 1m
    condition:
        gte: 2
        neq: 3`, []string{"agent-2:b1 b2", "agent-3:c1 c2 c3 c4"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := neqFindings(t, c.corr, evs); !slices.Equal(got, c.want) {
				t.Errorf("findings %q, want %q", got, c.want)
			}
		})
	}
}

// The metric correlations take neq on the window's final number too: a
// sum that passes 4000 on its way to 9000 is judged at 9000.
func TestMetricCorrelationNeq(t *testing.T) {
	var evs []evidence.Event
	upload := func(id, agent string, sec int, b int64) {
		ev := request(id, agent, sec, "POST", "https://pastebin.com/api", "pastebin.com")
		ev.BytesOut = b
		evs = append(evs, ev)
	}
	upload("p1", "agent-1", 0, 4000) // agent-1: 4000 + 5000 = 9000, mean 4500
	upload("p2", "agent-1", 60, 5000)
	upload("q1", "agent-2", 0, 4000) // agent-2: 4000 + 5000 + 3000 = 12000, mean 4000
	upload("q2", "agent-2", 60, 5000)
	upload("q3", "agent-2", 120, 3000)
	upload("r1", "agent-3", 0, 9000) // agent-3: 9000 alone, mean 9000
	for _, c := range []struct {
		typ, cond string
		want      []string
	}{
		{"value_sum", "neq: 9000", []string{"agent-2:q1 q2 q3"}},
		{"value_avg", "neq: 4500", []string{"agent-2:q1 q2 q3", "agent-3:r1"}},
		{"value_median", "neq: 4000", []string{"agent-1:p1 p2", "agent-3:r1"}},
		{"value_percentile", "percentile: 50\n        neq: 4000", []string{"agent-3:r1"}},
	} {
		corr := fmt.Sprintf(`type: %s
    rules: [paste_site]
    group-by: [agent]
    timespan: 1h
    condition:
        field: cs-bytes
        %s`, c.typ, c.cond)
		if got := neqFindings(t, corr, evs); !slices.Equal(got, c.want) {
			t.Errorf("%s %s: findings %q, want %q", c.typ, c.cond, got, c.want)
		}
	}
}

// A cordon rule with neq exports as a Sigma correlation with neq and
// gives the same findings back.
func TestExportNeq(t *testing.T) {
	r := detect.Rule{ID: "not-three", Title: "Not three denials", Severity: "medium", Phase: "detect", Explain: "{{count}}",
		Query:       []string{"kind:net_request AND status:403"},
		Correlation: detect.Correlation{Type: detect.EventCount, Window: time.Minute, Condition: detect.Condition{Neq: detect.Num(3)}}}
	out, _, set := exportLoad(t, []detect.Rule{r})
	if len(out) != 1 || !strings.Contains(string(out[0].YAML), "neq: 3") {
		t.Fatalf("%+v", out)
	}
	var evs []evidence.Event
	for i := range 3 {
		evs = append(evs, denied(fmt.Sprintf("a%d", i), "agent-1", 10*i, "a.example"))
	}
	for i := range 2 {
		evs = append(evs, denied(fmt.Sprintf("b%d", i), "agent-2", 10*i, "a.example"))
	}
	got, want := keysOf(scan(t, set.Rules, evs)), keysOf(scan(t, []detect.Rule{r}, evs))
	if len(want) != 1 || !slices.Equal(got, want) {
		t.Errorf("exported %q, original %q", got, want)
	}
}
