//go:build unix

package incident_test

import (
	"context"
	"os"
	"testing"

	"github.com/cordon-ir/cordon/incident"
)

// BenchmarkKeptAnswer: what a command run after the ingest pays for the
// detectors' answer on a kept bench incident (CORDON_BENCH_INCIDENT, kept
// by cordon bench --keep after the ingest kept its result): open the
// workspace, read the kept result, rank the agents — findings --by agent
// without its printing. Each iteration opens the workspace afresh. The
// machine is shared: cpu-ms/op is the figure to compare, wall ns/op the
// one the target is of.
func BenchmarkKeptAnswer(b *testing.B) {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ctx := context.Background()
	began := processCPU()
	for i := 0; i < b.N; i++ {
		ws, err := incident.Open(dir, incident.AllowShared(true))
		if err != nil {
			b.Fatal(err)
		}
		ranks, err := ws.AgentRanking(ctx)
		if err != nil || len(ranks) == 0 {
			b.Fatalf("ranking: %v", err)
		}
		if why, _ := ws.Stale(); why != "" {
			b.Fatalf("the kept result was not read: %s", why)
		}
		ws.Close()
	}
	b.ReportMetric(float64((processCPU()-began).Milliseconds())/float64(b.N), "cpu-ms/op")
}
