package detect

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// Four uploads of one agent within ten minutes (100, 300, 200 and 1000
// bytes), then one of 50 bytes after the window has let them all go.
func metricEvents() []evidence.Event {
	t0 := time.Date(2026, 8, 11, 9, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	for i, x := range []struct {
		sec   int
		bytes int64
	}{{0, 100}, {60, 300}, {120, 200}, {180, 1000}, {1000, 50}} {
		evs = append(evs, evidence.Event{ID: string(rune('a' + i)), Time: t0.Add(time.Duration(x.sec) * time.Second),
			Source: evidence.SourceProxy, Kind: evidence.KindNetRequest, Agent: "agent-1", BytesOut: x.bytes})
	}
	// an event without the field is not in the window: it would make the
	// mean and the median smaller if it counted as 0
	evs = append(evs, evidence.Event{ID: "z", Time: t0.Add(150 * time.Second), Source: evidence.SourceProxy,
		Kind: evidence.KindNetRequest, Agent: "agent-1"})
	return evs
}

func TestSigmaMetricCorrelations(t *testing.T) {
	for _, tc := range []struct {
		typ        string
		percentile float64
		cond       Condition
		events     string // the finding's events
		value      string // the metric when it last held
	}{
		// sums 100, 400, 600, 1600: from the third on
		{ValueSum, 0, Condition{Gte: Num(600)}, "a b c d", "1600"},
		// means 100, 200, 200, 400
		{ValueAvg, 0, Condition{Gte: Num(300)}, "a b c d", "400"},
		// medians 100, 200, 200, (200+300)/2 = 250
		{ValueMedian, 0, Condition{Gte: Num(250)}, "a b c d", "250"},
		// 75th percentiles by nearest rank: 100, 300 (rank 2 of 2), 300
		// (rank 3 of 3: 300), 300 (rank 3 of 4)
		{ValuePercentile, 75, Condition{Gte: Num(300)}, "a b c d", "300"},
		// an upper bound too: sums 600 and 1600, only 600 within [500, 700]
		{ValueSum, 0, Condition{Gte: Num(500), Lte: Num(700)}, "a b c", "600"},
	} {
		r := Rule{ID: "m", Title: "m", Severity: SeverityLow, Phase: "detect", Explain: "{{field}} {{value}}",
			Query: []string{"kind:net_request"}, Correlation: Correlation{Type: tc.typ, Field: "bytes_out",
				Window: 10 * time.Minute, Condition: tc.cond, Percentile: tc.percentile}}
		res, err := (&Engine{Rules: []Rule{r}}).Scan(context.Background(), NewMemSource(metricEvents()))
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		if len(res.Findings) != 1 {
			t.Errorf("%s %s: %d findings, want 1: %+v", tc.typ, tc.cond, len(res.Findings), res.Findings)
			continue
		}
		f := res.Findings[0]
		if got := strings.Join(f.Events, " "); got != tc.events || f.Explanation != "bytes_out "+tc.value {
			t.Errorf("%s %s: events %q, %q; want %q, %q", tc.typ, tc.cond, got, f.Explanation, tc.events, "bytes_out "+tc.value)
		}
	}
}

func TestSigmaMetricCorrelationsValidate(t *testing.T) {
	base := Rule{ID: "m", Title: "m", Severity: SeverityLow, Phase: "detect", Explain: "{{value}}",
		Query: []string{"kind:net_request"}}
	for _, tc := range []struct {
		c    Correlation
		want string
	}{
		{Correlation{Type: ValueSum, Field: "dst_host", Window: time.Minute, Condition: Condition{Gte: Num(1)}}, "numeric field"},
		{Correlation{Type: ValueAvg, Field: "bytes_out", Window: time.Minute}, "needs a condition"},
		{Correlation{Type: ValuePercentile, Field: "bytes_out", Window: time.Minute, Condition: Condition{Gte: Num(1)}}, "percentile"},
		{Correlation{Type: ValueMedian, Field: "bytes_out", Window: time.Minute, Condition: Condition{Gte: Num(1)}, Percentile: 50}, "percentile belongs"},
	} {
		r := base
		r.Correlation = tc.c
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.c.Type, err, tc.want)
		}
	}
}
