//go:build unix

package incident_test

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
)

// BenchmarkScan: the detectors' one pass with the capability sets, on an
// incident kept by cordon bench --keep (CORDON_BENCH_INCIDENT=DIR/incident),
// without and with the search for keys in tool calls and outputs. The
// machine is shared: CPU time per run is the figure to compare.
func BenchmarkScan(b *testing.B) {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ws, err := incident.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	for _, keys := range []bool{false, true} {
		name := "plain"
		if keys {
			name = "keys"
		}
		b.Run(name, func(b *testing.B) {
			opt := incident.FindingsOptions{}
			if keys {
				opt.Secrets, _ = ws.Redactor()
			}
			var cpu time.Duration
			for i := 0; i < b.N; i++ {
				began := processCPU()
				r, err := incident.Scan(context.Background(), ws.Store, opt)
				cpu += processCPU() - began
				if err != nil || len(r.Findings) == 0 {
					b.Fatalf("scan: %d findings, %v", len(r.Findings), err)
				}
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// processCPU is the CPU time the process used so far, every thread.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
