//go:build unix

package watch

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
)

// copies makes n copies of evs, each a day after the one before, with
// their own event ids, agents and sessions: a stream of n times the
// sample's agents, with the keys (addresses, containers, credentials)
// bound to a copy's agent for its day only.
func copies(evs []evidence.Event, n int) []evidence.Event {
	var out []evidence.Event
	for c := range n {
		for _, ev := range evs {
			sum := sha256.Sum256([]byte(strconv.Itoa(c) + ev.ID))
			ev.ID = hex.EncodeToString(sum[:8])
			ev.Time = ev.Time.Add(time.Duration(c) * 24 * time.Hour)
			if ev.Agent != "" {
				ev.Agent += "-c" + strconv.Itoa(c)
			}
			if ev.Session != "" {
				ev.Session += "-c" + strconv.Itoa(c)
			}
			out = append(out, ev)
		}
	}
	return out
}

// cpu is the process's CPU time so far (user and system): the server runs
// in the process too.
func cpu(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPartitionCPU is the CPU per event of the stream spent by one
// watcher of every agent, and by each watcher of two partitions, run one
// after the other on a pre-filled stream (the server in the process, so
// its share of the reading is counted too; no publisher running).
//
//	go test ./watch -run '^$' -bench PartitionCPU -benchtime 1x
func BenchmarkPartitionCPU(b *testing.B) {
	for range b.N {
		_, js := bus(b)
		evs := copies(sampleEvents(b, "shared-volume-token"), 20)
		publishEvents(b, js, evs)
		measure := func(name string, p Partition) float64 {
			start := cpu(b)
			s := watch(b, js, Config{Durable: name, Partition: p, Lateness: 2 * time.Second, Idle: 300 * time.Millisecond})
			per := float64(cpu(b)-start) / float64(len(evs))
			b.Logf("%s: %d own, %d peer events, %.1f µs CPU per stream event", name, s.Released, s.Other, per/1e3)
			return per
		}
		// a first watcher warms the process (heap, the server's caches)
		// and is not counted: the first measured ran 10-40% slower
		measure("warm-up", Partition{})
		one := measure("one", Partition{})
		p0 := measure("two", Partition{Index: 0, Count: 2})
		p1 := measure("two", Partition{Index: 1, Count: 2})
		// both partitions at once in one process, as a worker holding
		// both runs them: each message decoded once (fleet.Shared)
		shared := fleet.NewShared(2, 0)
		began := cpu(b)
		var rs []*started
		for i := range 2 {
			rs = append(rs, start(b, js, Config{Durable: "shared", Partition: Partition{Index: i, Count: 2}, Lateness: 2 * time.Second, Idle: 300 * time.Millisecond, Shared: shared}))
		}
		for _, r := range rs {
			r.idle(b, js)
		}
		for _, r := range rs {
			r.stop(b)
		}
		both := float64(cpu(b)-began) / float64(len(evs)) / 2
		b.Logf("shared: two partitions at once, %d of %d messages decoded once for both, %.1f µs CPU per stream event each", shared.Hits(), len(evs), both/1e3)
		b.ReportMetric(float64(len(evs)), "events")
		b.ReportMetric(one/1e3, "µs/event-one")
		b.ReportMetric(p0/1e3, "µs/event-p0of2")
		b.ReportMetric(p1/1e3, "µs/event-p1of2")
		b.ReportMetric((p0+p1)/2/one, "partition/one")
		b.ReportMetric(both/one, "shared-partition/one")
	}
}
