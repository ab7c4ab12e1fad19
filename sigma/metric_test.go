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

// Three uploads to a paste site within the hour: 4000, 5000 and 3000
// bytes. Sums 4000, 9000, 12000; means 4000, 4500, 4000; medians 4000,
// 4500, 4000; 50th percentiles by nearest rank 4000, 4000, 4000.
func TestSigmaMetricCorrelations(t *testing.T) {
	var evs []evidence.Event
	for i, b := range []int64{4000, 5000, 3000} {
		ev := request(fmt.Sprintf("p%d", i+1), "agent-1", 60*i, "POST", "https://pastebin.com/api", "pastebin.com")
		ev.BytesOut = b
		evs = append(evs, ev)
	}
	// another agent's upload is another group
	other := request("q1", "agent-2", 30, "POST", "https://pastebin.com/api", "pastebin.com")
	other.BytesOut = 20000
	evs = append(evs, other)
	for _, tc := range []struct {
		typ, cond string
		want      []string // the findings' events, agent-1's
		explain   string
	}{
		{"value_sum", "gt: 10000", []string{"p1 p2 p3"}, "sum of cs-bytes 12000"},
		{"value_avg", "gte: 4500", []string{"p1 p2"}, "mean of cs-bytes 4500"},
		{"value_median", "gte: 4500", []string{"p1 p2"}, "median of cs-bytes 4500"},
		{"value_percentile", "percentile: 50\n        gte: 4500", nil, ""},
		{"value_percentile", "percentile: 50\n        gte: 4000\n        lt: 4500", []string{"p1 p2 p3"}, "50th percentile of cs-bytes 4000"},
	} {
		rules := mustLoad(t, members+`---
title: Upload volume
id: 51111111-2222-4333-8444-555555555555
correlation:
    type: `+tc.typ+`
    rules: [paste_site]
    group-by: [agent]
    timespan: 1h
    condition:
        field: cs-bytes
        `+tc.cond+`
level: high
`)
		var got []string
		explain := ""
		for _, f := range findingsOf(scan(t, rules, evs), "51111111-2222-4333-8444-555555555555") {
			if f.Agent == "agent-1" {
				got = append(got, strings.Join(f.Events, " "))
				explain = f.Explanation
			}
		}
		if !slices.Equal(got, tc.want) || !strings.Contains(explain, tc.explain) {
			t.Errorf("%s %s: %q %q, want %q %q", tc.typ, tc.cond, got, explain, tc.want, tc.explain)
		}
	}
}

// A cordon rule with a metric correlation exports as the Sigma one and
// gives the same findings back.
func TestExportMetricCorrelation(t *testing.T) {
	r := detect.Rule{ID: "upload-p90", Title: "Upload sizes", Severity: "medium", Phase: "detect", Explain: "{{value}}",
		Query: []string{"kind:net_request AND bytes_out:>0"},
		Correlation: detect.Correlation{Type: detect.ValuePercentile, Percentile: 90, Field: "bytes_out",
			Window: time.Hour, Condition: detect.Condition{Gte: detect.Num(5000)}}}
	out, _, set := exportLoad(t, []detect.Rule{r})
	if len(out) != 1 || !strings.Contains(string(out[0].YAML), "percentile: 90") {
		t.Fatalf("%+v", out)
	}
	var evs []evidence.Event
	for i, b := range []int64{1000, 6000, 2000, 7000, 100} {
		ev := request(fmt.Sprintf("u%d", i), "agent-1", 600*i, "POST", "https://x.example/", "x.example")
		ev.BytesOut = b
		evs = append(evs, ev)
	}
	got, want := keysOf(scan(t, set.Rules, evs)), keysOf(scan(t, []detect.Rule{r}, evs))
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("exported %q, original %q", got, want)
	}
}
