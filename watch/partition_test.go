package watch

import (
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet"
)

// The watchers of every partition of the agents, each with its own
// consumer of the whole stream, publish together the findings one watcher
// of every agent publishes (the one-shot engine's), each created once, and
// each partition only its own agents'. In shared-volume-token agent-40
// uses a credential issued to agent-41 from outside every sandbox, and the
// two are in different partitions: the misuse is found, charged to
// agent-40, with the uses the credential attributed to agent-41.
func TestPartitionsTogetherFindWhatOneWatcherFinds(t *testing.T) {
	for _, name := range []string{"credential-theft", "shared-volume-token", "egress-probe-exfil"} {
		t.Run(name, func(t *testing.T) {
			_, js := bus(t)
			evs := sampleEvents(t, name)
			want := oneShot(t, evs)
			publishEvents(t, js, evs)
			const n = 4
			if name == "shared-volume-token" && partitionOf("agent-40", n) == partitionOf("agent-41", n) {
				t.Fatal("agent-40 and agent-41 share a partition: the misuse across partitions is not tested")
			}
			var other int64
			for i := range n {
				part := Partition{Index: i, Count: n}
				s := watch(t, js, Config{Durable: "part", Partition: part, Lateness: 2 * time.Second, Idle: 500 * time.Millisecond})
				other += s.Other
			}
			if other == 0 {
				t.Fatal("no partition left any event to another: the test would prove nothing")
			}
			sameFindings(t, js, want)
			owners := map[string]int{}
			for _, f := range want {
				for i := range n {
					if (Partition{Index: i, Count: n}).Owns(f.Agent) {
						owners[f.Agent] = i
					}
				}
			}
			t.Logf("%d findings, agents by partition %v", len(want), owners)
		})
	}
}

func partitionOf(agent string, n int) int {
	for i := range n {
		if (Partition{Index: i, Count: n}).Owns(agent) {
			return i
		}
	}
	return -1
}

// Two partition watchers running at once in one process, as a worker
// holding both runs them, share their decoding (fleet.Shared): each
// message is decoded by one of them, and together they publish the
// findings one watcher of every agent publishes, each created once.
func TestPartitionsSharingTheirDecodingFindWhatOneWatcherFinds(t *testing.T) {
	_, js := bus(t)
	evs := sampleEvents(t, "shared-volume-token")
	want := oneShot(t, evs)
	publishEvents(t, js, evs)
	shared := fleet.NewShared(2, 0)
	var rs []*started
	for i := range 2 {
		rs = append(rs, start(t, js, Config{Durable: "shared", Partition: Partition{Index: i, Count: 2}, Lateness: 2 * time.Second, Idle: 500 * time.Millisecond, Shared: shared}))
	}
	for _, r := range rs {
		r.idle(t, js)
	}
	for _, r := range rs {
		r.stop(t)
	}
	if h := shared.Hits(); h < int64(len(evs))/2 {
		t.Fatalf("%d of %d messages taken decoded from the other partition: the decoding was not shared", h, len(evs))
	}
	sameFindings(t, js, want)
}
