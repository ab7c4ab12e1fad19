//go:build unix

package incident_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/sigma"
)

// BenchmarkSigmaReplay: the SigmaHQ rules committed in
// sigma/testdata/sigmahq replayed over a kept bench incident
// (CORDON_BENCH_INCIDENT=DIR/incident) in the one engine: a pass with no
// rules (reading the events, the capability sets), the SigmaHQ rules
// alone, the built-in rules alone, and the two together, as a case with
// sigma: in its cordon.yaml runs them. CPU seconds per pass, GC included;
// the events read are reported, so the rate is the figure to compare.
// The events are read as any replay of the workspace reads them: from its
// replay log when it has one of the index now (engine.md).
func BenchmarkSigmaReplay(b *testing.B) {
	ws := benchIncident(b)
	set, err := sigma.Load(nil, "../sigma/testdata/sigmahq")
	if err != nil {
		b.Fatal(err)
	}
	builtin, err := detect.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	both := append(append([]detect.Rule{}, builtin...), set.Rules...)
	b.Logf("%d SigmaHQ rules run (%d refused, %d can never fire), %d built-in", len(set.Rules), len(set.Refused), len(set.Unfed), len(builtin))
	for _, tc := range []struct {
		name  string
		rules []detect.Rule
	}{{"none", []detect.Rule{}}, {"sigmahq", set.Rules}, {"builtin", builtin}, {"builtin+sigmahq", both}} {
		b.Run(tc.name, func(b *testing.B) {
			var cpu, wall time.Duration
			findings := 0
			for i := 0; i < b.N; i++ {
				runtime.GC()
				began, start := processCPU(), time.Now()
				r, err := ws.ScanWith(context.Background(), incident.FindingsOptions{Rules: tc.rules})
				cpu += processCPU() - began
				wall += time.Since(start)
				if err != nil {
					b.Fatalf("scan: %v", err)
				}
				findings = len(r.Findings)
			}
			b.Logf("read from %s", ws.ReplayedFrom())
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(wall.Seconds()/float64(b.N), "wall-s/op")
			b.ReportMetric(float64(ws.Counts().Total), "events")
			b.ReportMetric(float64(findings), "findings")
		})
	}
}
