//go:build unix

package incident_test

import (
	"context"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"testing"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// BenchmarkPassHeld: what a pass holds at the end of a replay of the bench
// incident (CORDON_BENCH_INCIDENT=DIR/incident), before Done: the heap in
// use after a GC, less the heap in use before the pass started, in MB and
// in bytes per event, and the heap the collector scans then (scan-MB: the
// part that holds pointers, the whole process's); CORDON_HEAP_PROFILE=FILE
// writes the heap profile then (go tool pprof -sample_index=inuse_space
// FILE).
//
//	CORDON_BENCH_INCIDENT=DIR go test ./incident -run '^$' -bench PassHeld -benchtime 1x
func BenchmarkPassHeld(b *testing.B) {
	ws, eng, index := benchEngine(b)
	ctx := context.Background()
	// CORDON_BENCH_FROM_LOG=1: replay from the replay log, as a replay
	// does when the log holds the index's events (the index otherwise)
	var src detect.Source = index
	if os.Getenv("CORDON_BENCH_FROM_LOG") == "1" {
		src = ws.ReplaySource()
	}
	// CORDON_HEAP_PROFILE_RATE=N: one sample per N bytes allocated (the
	// default, 512 KiB, leaves small holders to chance)
	if n, err := strconv.Atoi(os.Getenv("CORDON_HEAP_PROFILE_RATE")); err == nil && n > 0 {
		runtime.MemProfileRate = n
	}
	for i := 0; i < b.N; i++ {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		p, err := eng.Start(ctx, src)
		if err != nil {
			b.Fatal(err)
		}
		began := processCPU()
		// CORDON_HEAP_PROFILE_AT=N: the profile after the N-th event
		// instead, with what reading the index holds at that moment
		at, _ := strconv.ParseInt(os.Getenv("CORDON_HEAP_PROFILE_AT"), 10, 64)
		err = p.ReplayVia(ctx, src, func(p *detect.Pass, ev *evidence.Event) error {
			err := p.Add(ev)
			if p.Events() == at {
				writeHeapProfile(b)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		cpu := processCPU() - began
		runtime.GC()
		runtime.ReadMemStats(&after)
		if at == 0 {
			writeHeapProfile(b)
		}
		held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
		// what the collector marks of it: the heap that holds pointers
		scan := []metrics.Sample{{Name: "/gc/scan/heap:bytes"}}
		metrics.Read(scan)
		b.ReportMetric(float64(scan[0].Value.Uint64())/(1<<20), "scan-MB")
		b.ReportMetric(held/(1<<20), "held-MB")
		b.ReportMetric(held/float64(p.Events()), "held-B/event")
		b.ReportMetric(cpu.Seconds(), "replay-cpu-s")
		b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/(1<<30), "alloc-GiB")
		b.ReportMetric(float64(after.NumGC-before.NumGC), "gcs")
		if r := p.Done(); len(r.Findings) == 0 {
			b.Fatal("no findings")
		}
	}
}

// writeHeapProfile writes the heap profile to CORDON_HEAP_PROFILE, if set.
func writeHeapProfile(b *testing.B) {
	name := os.Getenv("CORDON_HEAP_PROFILE")
	if name == "" {
		return
	}
	runtime.GC()
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		b.Fatal(err)
	}
}
