//go:build unix

package eval

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
)

// BenchmarkEvalRun scores the built-in suite on a kept bench incident
// (cordon bench --keep; CORDON_BENCH_INCIDENT=DIR/incident, 1,000,000
// events), opened read-only: each iteration is what `cordon eval run`
// does but the journal entry (one append): the kept findings and
// capability sets, the case's Assessment, every test's queries and
// controls. docs/performance.md has the figures.
func BenchmarkEvalRun(b *testing.B) {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ws, err := incident.Open(dir, incident.AllowShared(true))
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	s, err := Builtin()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var sc *Scorecard
	began := processCPU()
	for i := 0; i < b.N; i++ {
		if sc, err = Score(context.Background(), ws, s); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// the machine is shared: CPU seconds say what scoring costs when
	// the wall clock also says how busy the others were
	b.ReportMetric((processCPU()-began).Seconds()/float64(b.N), "cpu-s/op")
	tried, events := 0, 0
	for _, t := range sc.Tests {
		if t.Tried {
			tried++
			events += t.Events
		}
	}
	b.ReportMetric(float64(tried), "tests-tried")
	b.ReportMetric(float64(events), "tries")
	b.Logf("%d of %d tests tried, %d tries; crossed up to %q; %d missed; events %d", tried, len(sc.Tests), events, sc.Crossed, sc.Missed(), ws.Counts().Total)
}

// processCPU is the CPU time the process used so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
