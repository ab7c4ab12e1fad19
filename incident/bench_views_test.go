//go:build unix

package incident_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// BenchmarkReplayViews: what a view (Pass.View, as a following console or
// a watcher's verdicts ask) costs along a replay of the bench incident
// (CORDON_BENCH_INCIDENT=DIR/incident): a view every 4,000 events, their
// median, 90th percentile, largest and sum. CORDON_BENCH_VIEW_DELETES=1
// adds a pod's deletion (a Kubernetes audit record) before each view, as
// an agent deleting pods would.
//
//	CORDON_BENCH_INCIDENT=DIR go test ./incident -run '^$' -bench ReplayViews -benchtime 1x
func BenchmarkReplayViews(b *testing.B) {
	_, eng, src := benchEngine(b)
	deletes := os.Getenv("CORDON_BENCH_VIEW_DELETES") != ""
	ctx := context.Background()
	for range b.N {
		p, err := eng.Start(ctx, src)
		if err != nil {
			b.Fatal(err)
		}
		var took []time.Duration
		var sum time.Duration
		due := false
		view := func() {
			t := time.Now()
			p.View()
			d := time.Since(t)
			took, sum = append(took, d), sum+d
		}
		err = p.ReplayVia(ctx, src, func(p *detect.Pass, ev *evidence.Event) error {
			if due && ev.Time.After(p.Last().Time) {
				// at the last event's time, after it: in the pass's order
				last := p.Last()
				del := evidence.Event{ID: last.ID + "~", Time: last.Time, Source: evidence.SourceAudit, Format: "k8s-audit",
					Kind: evidence.KindNetRequest, Method: "delete", URL: fmt.Sprintf("/api/v1/namespaces/bench/pods/p%d", p.Events()),
					Decision: evidence.DecisionAllow, Status: "200"}
				if err := p.Add(&del); err != nil {
					return err
				}
				due = false
				view()
			}
			if err := p.Add(ev); err != nil {
				return err
			}
			if p.Events()%4000 == 0 {
				if deletes {
					due = true
				} else {
					view()
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if len(took) == 0 {
			b.Fatal("no view made")
		}
		slices.Sort(took)
		q := func(f float64) float64 { return took[min(len(took)-1, int(f*float64(len(took))))].Seconds() * 1000 }
		b.ReportMetric(float64(len(took)), "views")
		b.ReportMetric(q(0.5), "p50-ms")
		b.ReportMetric(q(0.9), "p90-ms")
		b.ReportMetric(took[len(took)-1].Seconds()*1000, "max-ms")
		b.ReportMetric(sum.Seconds(), "sum-s")
	}
}
