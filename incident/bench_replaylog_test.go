package incident

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// BenchmarkReplayRead: what reading every stored event in time order
// costs, from the index and from the replay log, on the kept bench
// incident (CORDON_BENCH_INCIDENT; a replay, e.g. `cordon findings
// --recompute`, must have written its log). Nothing is done with the
// events: this is the reading a replay pays before its engine.
func BenchmarkReplayRead(b *testing.B) {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ws, err := Open(dir, AllowShared(true))
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	ctx := context.Background()
	total := ws.store.Counts().Total
	count := func(b *testing.B, read func(fn func(evidence.Event) error) error) {
		for i := 0; i < b.N; i++ {
			var n int64
			if err := read(func(evidence.Event) error { n++; return nil }); err != nil {
				b.Fatal(err)
			}
			if n != total {
				b.Fatalf("%d events, want %d", n, total)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*total)/1e3, "µs/event")
	}
	b.Run("index", func(b *testing.B) {
		count(b, func(fn func(evidence.Event) error) error {
			return evidence.StoreSource{Store: ws.store}.Each(ctx, evidence.All(), fn)
		})
	})
	b.Run("log", func(b *testing.B) {
		src := ws.replaySource()
		if src.log == nil {
			b.Skipf("no replay log to read: %s", src.why)
		}
		count(b, func(fn func(evidence.Event) error) error {
			return eachLogged(ctx, filepath.Join(dir, engineDir, replayLogFile), src.log.Events, evidence.EventDecoder{}, fn)
		})
	})
}

// BenchmarkReplayFromLog: a whole replay of the bench incident from its
// replay log: the reading above and the engine (`findings --recompute`
// without writing the answer; as the command, the workspace reads alone
// and lets its index go while the replay reads the log, unless
// CORDON_BENCH_KEEP_INDEX=1).
func BenchmarkReplayFromLog(b *testing.B) {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ws, err := Open(dir, AllowShared(true))
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	if os.Getenv("CORDON_BENCH_KEEP_INDEX") != "1" {
		ws.ReadsAlone()
	}
	secrets, _ := ws.Redactor()
	for i := 0; i < b.N; i++ {
		r, err := ws.ScanWith(context.Background(), FindingsOptions{Secrets: secrets})
		if err != nil || len(r.Findings) == 0 {
			b.Fatalf("%d findings, %v", len(r.Findings), err)
		}
		if from := ws.ReplayedFrom(); from != "the replay log" {
			b.Fatalf("replayed from %s", from)
		}
	}
}
