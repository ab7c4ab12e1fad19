//go:build unix

package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/sigma"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// prefill publishes evs asynchronously, at most 4,096 awaiting the
// server's acknowledgement, and waits for every acknowledgement.
func prefill(b *testing.B, js jetstream.JetStream, evs []evidence.Event) {
	b.Helper()
	for i := range evs {
		m, err := fleet.Encode(&evs[i])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := js.PublishMsgAsync(m); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(5 * time.Minute):
		b.Fatal("the stream did not take the events in 5 minutes")
	}
}

func heapHeld() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// agents counts the distinct agents named by evs' records.
func agents(evs []evidence.Event) int {
	seen := map[string]bool{}
	for i := range evs {
		if evs[i].Agent != "" {
			seen[evs[i].Agent] = true
		}
	}
	return len(seen)
}

// BenchmarkWatchThroughput is one watcher of every agent, with the
// built-in rules, on a stream filled before it starts: the samples'
// events copied 40 times over (each copy a day after the one before, with
// agents and sessions of its own), the server in the process (its share
// of the reading counted), no publisher running. events/s is the stream's
// events over the time from the watcher's start to the release of the
// last of them; CPU/event is the process's user and system time over the
// same span, per event; heap/agent is the heap the watcher holds at the
// end (after a collection) over the agents it saw.
//
//	go test ./watch -run '^$' -bench WatchThroughput -benchtime 1x
//
// CORDON_BENCH_SIGMA names Sigma rules (a folder or file) run beside the
// built-in ones:
//
//	CORDON_BENCH_SIGMA=../sigma/testdata/sigmahq go test ./watch -run '^$' -bench WatchThroughput -benchtime 1x
func BenchmarkWatchThroughput(b *testing.B) {
	var rules []detect.Rule // nil: the built-in ones
	if dir := os.Getenv("CORDON_BENCH_SIGMA"); dir != "" {
		set, err := sigma.Load(nil, dir)
		if err != nil {
			b.Fatal(err)
		}
		if rules, err = detect.Builtin(); err != nil {
			b.Fatal(err)
		}
		rules = append(rules, set.Rules...)
		b.Logf("the built-in rules and %d Sigma rules of %s", len(set.Rules), dir)
	}
	for range b.N {
		_, js := bus(b)
		var evs []evidence.Event
		for _, name := range []string{"credential-theft", "shared-volume-token", "egress-probe-exfil"} {
			evs = append(evs, copies(sampleEvents(b, name), 40)...)
		}
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
		prefill(b, js, evs)
		before := heapHeld()

		var mu sync.Mutex
		var released int
		var last time.Time
		w, err := New(js, Config{Rules: rules, Durable: "throughput", Lateness: 2 * time.Second, Idle: 300 * time.Millisecond, Batch: func(bt Batch) {
			mu.Lock()
			released += bt.Released + bt.Other
			if released == len(evs) && last.IsZero() {
				last = time.Now()
			}
			mu.Unlock()
		}})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		b.ResetTimer()
		stopProfile := profileRegion(b)
		startCPU, start := cpu(b), time.Now()
		go func() { done <- w.Run(ctx) }()
		waitIdle(b, js, w, "throughput", done)
		b.StopTimer()
		stopProfile()
		endCPU := cpu(b)
		mu.Lock()
		took := last.Sub(start)
		mu.Unlock()
		held := heapHeld()
		cancel()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		st := w.Stats()
		if took <= 0 || st.Released != int64(len(evs)) {
			b.Fatalf("%d of %d events released", st.Released, len(evs))
		}
		n := agents(evs)
		b.ReportMetric(float64(len(evs)), "events")
		b.ReportMetric(float64(len(evs))/took.Seconds(), "events/s")
		b.ReportMetric(float64(endCPU-startCPU)/float64(len(evs))/1e3, "µs-CPU/event")
		b.ReportMetric(float64(n), "agents")
		b.ReportMetric((float64(held)-float64(before))/float64(n), "heap-B/agent")
		b.ReportMetric(float64(st.Findings), "findings")
	}
}

// BenchmarkWatchLatency is the time from an event's publication to the
// publication of the finding it completes: the samples' events, 30
// copies made as above, their times moved onto the wall clock as they are
// published at a steady rate (a publisher in the process, the server
// and one watcher on the same cores). A finding's latency is the time from the
// publication of the latest of the events its "created" message names to
// the arrival of that message. The watcher's lateness, which every event
// waits out in the reorder buffer, is part of it.
//
//	go test ./watch -run '^$' -bench WatchLatency -benchtime 1x
func BenchmarkWatchLatency(b *testing.B) {
	for _, c := range []struct {
		rate     int
		lateness time.Duration
	}{{10000, 250 * time.Millisecond}, {10000, DefaultLateness}, {20000, 250 * time.Millisecond}, {30000, 250 * time.Millisecond}} {
		b.Run(fmt.Sprintf("rate=%d/lateness=%s", c.rate, c.lateness), func(b *testing.B) {
			for range b.N {
				latency(b, c.lateness, c.rate)
			}
		})
	}
}

func latency(b *testing.B, lateness time.Duration, rate int) {
	url, js := bus(b)
	var evs []evidence.Event
	for _, name := range []string{"credential-theft", "shared-volume-token", "egress-probe-exfil"} {
		evs = append(evs, copies(sampleEvents(b, name), 30)...)
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	var mu sync.Mutex
	sent := make(map[string]time.Time, len(evs))
	var lat []time.Duration
	sub, err := nc.Subscribe(FindingsPrefix+".>", func(m *nats.Msg) {
		now := time.Now()
		var f Message
		if json.Unmarshal(m.Data, &f) != nil || f.Change != Created {
			return
		}
		mu.Lock()
		var at time.Time
		for _, id := range f.Events {
			if t := sent[id]; t.After(at) {
				at = t
			}
		}
		if !at.IsZero() {
			lat = append(lat, now.Sub(at))
		}
		mu.Unlock()
	})
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Unsubscribe()
	// the publisher has a connection of its own, as a shipper does: the
	// watcher's findings do not wait behind its messages
	pnc, pjs, err := fleet.Connect(url, "publisher", 0)
	if err != nil {
		b.Fatal(err)
	}
	defer pnc.Close()
	w, err := New(js, Config{Durable: "latency", Lateness: lateness, Idle: lateness})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	b.ResetTimer()
	start := time.Now()
	every := time.Second / time.Duration(rate)
	for i := range evs {
		due := start.Add(time.Duration(i) * every)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		ev := evs[i]
		ev.Time = time.Now().UTC()
		m, err := fleet.Encode(&ev)
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		sent[ev.ID] = ev.Time
		mu.Unlock()
		// a server that falls behind stalls the publisher: it waits, and
		// the rate achieved says so
		for {
			_, err := pjs.PublishMsgAsync(m)
			if err == nil {
				break
			}
			if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
				b.Fatal(err)
			}
		}
	}
	<-pjs.PublishAsyncComplete()
	achieved := float64(len(evs)) / time.Since(start).Seconds()
	waitIdle(b, js, w, "latency", done)
	b.StopTimer()
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lat) == 0 {
		b.Fatal("no finding created")
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return lat[min(len(lat)-1, int(p*float64(len(lat))))].Seconds() * 1e3 }
	st := w.Stats()
	b.Logf("replays %d, late %d, last publication took %s", st.Replays, st.Late, w.publishCost)
	b.ReportMetric(achieved, "events/s")
	b.ReportMetric(float64(len(lat)), "findings")
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(lat[len(lat)-1].Seconds()*1e3, "max-ms")
}

// profileRegion writes a CPU profile of the measured region alone to
// $CORDON_BENCH_CPUPROFILE, when set (-test.cpuprofile would take in the
// set-up, which costs more than the region here); the returned func stops it.
func profileRegion(b *testing.B) func() {
	path := os.Getenv("CORDON_BENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
