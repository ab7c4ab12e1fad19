//go:build unix

package incident_test

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/bench"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest"
)

// BenchmarkFollowLatency: from a line appended to a followed ledger to
// the detectors' answer that includes it, while lines are appended at
// CORDON_BENCH_FOLLOW_RATE per second (default 10,000) for
// CORDON_BENCH_FOLLOW_EVENTS ledger records (default 200,000) of the
// bench generator's incident. Each round of the follow reads what was
// appended since the last, indexes it, adds it to the pass and keeps the
// answer; a line's latency is when that round ended less when the line
// was written. One source only: lines of sources followed side by side
// cross in time, and an event earlier than the pass's last makes a
// replay (docs/engine.md).
//
// CORDON_BENCH_FOLLOW_DETECT=0 follows without the detectors: a line's
// latency is then to the round that indexed it, the floor the detectors
// add to.
func BenchmarkFollowLatency(b *testing.B) {
	events, rate := envInt("CORDON_BENCH_FOLLOW_EVENTS", 200000), envInt("CORDON_BENCH_FOLLOW_RATE", 10000)
	gen := b.TempDir()
	// the generator writes 40% of its records to the ledger
	if _, err := bench.Generate(gen, events*5/2, 0); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(gen, "ledger.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	// the lines as where each ends in data: the bench's own state holds no
	// pointer a collection would follow, as the lines' slices did (a
	// million of them, marked at every cycle of the follow measured)
	var ends []int
	for at := 0; at < len(data) && len(ends) < events; {
		n := bytes.IndexByte(data[at:], '\n')
		if n < 0 {
			n = len(data) - at - 1
		}
		at += n + 1
		ends = append(ends, at)
	}
	for i := 0; i < b.N; i++ {
		lat, rounds, replays, detect := followLatency(b, data, ends, rate)
		slices.Sort(lat)
		q := func(p float64) time.Duration { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
		b.ReportMetric(q(0.5).Seconds()*1000, "p50-ms")
		b.ReportMetric(q(0.99).Seconds()*1000, "p99-ms")
		b.ReportMetric(lat[len(lat)-1].Seconds()*1000, "max-ms")
		b.ReportMetric(float64(rounds), "rounds")
		b.ReportMetric(float64(replays), "replays")
		b.ReportMetric(detect.Seconds()*1000/float64(rounds), "detect-ms/round")
	}
}

func followLatency(b *testing.B, data []byte, ends []int, rate int) (lat []time.Duration, rounds, replays int, detect time.Duration) {
	ws, err := incident.Create(filepath.Join(b.TempDir(), "case"))
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	log := filepath.Join(b.TempDir(), "ledger.jsonl")
	f, err := os.Create(log)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var mu sync.Mutex
	written := make([]int64, 0, len(ends)) // when each line was written (Unix ns)
	w := bufio.NewWriter(f)
	go func() {
		const tick = 10 * time.Millisecond
		per := max(rate*int(tick)/int(time.Second), 1)
		from := 0
		for i := 0; i < len(ends); i += per {
			to := ends[min(i+per, len(ends))-1]
			w.Write(data[from:to])
			from = to
			w.Flush()
			now := time.Now().UnixNano()
			mu.Lock()
			for range min(i+per, len(ends)) - i {
				written = append(written, now)
			}
			mu.Unlock()
			time.Sleep(tick)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	consumed, slow := 0, 0
	var took time.Duration // the detectors' share of the round just ended
	var opt incident.IngestOptions
	detectors := func(r incident.LiveRound, err error) {
		if err != nil {
			b.Error(err)
		}
		detect += r.Took
		took = r.Took
		if r.Replayed != "" && r.Replayed != "the follow began" {
			replays++
			b.Logf("round %d replayed %d events: %s", rounds+1, r.Added, r.Replayed)
		}
	}
	if os.Getenv("CORDON_BENCH_FOLLOW_DETECT") != "0" {
		opt.Detectors = detectors
	}
	last := time.Now()
	err = ws.Follow(ctx, []string{log}, opt, 500*time.Millisecond, func(res []ingest.FileResult) {
		now := time.Now()
		rounds++
		n := 0
		for _, r := range res {
			n += r.Events + r.Rejects
		}
		mu.Lock()
		worst := time.Duration(0)
		for i := consumed; i < consumed+n && i < len(written); i++ {
			d := time.Duration(now.UnixNano() - written[i])
			lat = append(lat, d)
			worst = max(worst, d)
		}
		mu.Unlock()
		// a round whose oldest line waited over a second: how long the
		// round was, and the detectors' share of it
		if worst > time.Second && slow < 30 {
			slow++
			b.Logf("round %d: %d lines, oldest %v, %v since the round before, detectors %v",
				rounds, n, worst.Round(time.Millisecond), now.Sub(last).Round(time.Millisecond), took.Round(time.Millisecond))
		}
		last, took = now, 0
		// CORDON_HEAP_PROFILE=FILE: the heap in use once three quarters of
		// the lines are in (go tool pprof -sample_index=inuse_space FILE)
		if consumed < len(ends)*3/4 && consumed+n >= len(ends)*3/4 {
			writeHeapProfile(b)
		}
		if consumed += n; consumed >= len(ends) {
			cancel()
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	return lat, rounds, replays, detect
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
