package watch

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet"
)

// runWorker runs a worker of group "fleet" on a connection of its own,
// returning how to lose it (its connection closed without a word, as a
// killed process's is, then its goroutines stopped) and its statuses.
func runWorker(t *testing.T, url, name string, partitions int, statuses *sync.Map) (lose func(), done chan error) {
	t.Helper()
	nc, js, err := fleet.Connect(url, name, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	cfg := WorkerConfig{
		Config: Config{Durable: "fleet", Lateness: 2 * time.Second, Idle: 500 * time.Millisecond, AckWait: 2 * time.Second},
		Worker: name, Partitions: partitions, Lease: time.Second,
		Status: func(s WorkerStatus) { statuses.Store(name, s) },
	}
	go func() { done <- RunWorker(ctx, js, cfg) }()
	t.Cleanup(func() { cancel(); nc.Close() })
	return func() { nc.Close(); cancel() }, done
}

// Two workers share the partitions of a group; the one running the
// partition of the agent the findings are about is lost mid-stream (its
// connection gone, its leases left to expire) after it published some;
// the other takes its partitions up and the findings stream ends with the
// one-shot engine's findings, each created once. The group's bucket shows
// both workers holding partitions before the loss, and their status.
func TestWorkersShareThePartitionsAndTakeOverALostOne(t *testing.T) {
	url, js := bus(t)
	evs := sampleEvents(t, "shared-volume-token")
	want := oneShot(t, evs)
	const partitions = 4
	var statuses sync.Map
	lose, done := map[string]func(){}, map[string]chan error{}
	for _, name := range []string{"worker-a", "worker-b"} {
		lose[name], done[name] = runWorker(t, url, name, partitions, &statuses)
	}
	var leases map[int]string
	waitFor(t, "both workers to hold partitions", func() bool {
		g, err := ReadGroup(context.Background(), js, "fleet")
		if err != nil {
			return false
		}
		by := map[string]int{}
		for _, w := range g.Leases {
			by[w]++
		}
		leases = g.Leases
		return len(g.Leases) == partitions && by["worker-a"] > 0 && by["worker-b"] > 0
	})
	// the worker of the findings' agent
	lost := ""
	for i, w := range leases {
		if (Partition{Index: i, Count: partitions}).Owns(want[0].Agent) {
			lost = w
		}
	}
	kept := map[string]string{"worker-a": "worker-b", "worker-b": "worker-a"}[lost]
	t.Logf("leases %v; %s runs %s's partition and is lost", leases, lost, want[0].Agent)

	half := len(evs) / 2
	publishEvents(t, js, evs[:half])
	waitFor(t, lost+" to publish findings", func() bool {
		s, ok := statuses.Load(lost)
		return ok && s.(WorkerStatus).Published > 0 && s.(WorkerStatus).Lag == 0
	})
	lose[lost]()
	<-done[lost]
	publishEvents(t, js, evs[half:])
	caughtUp := func() bool {
		s, ok := statuses.Load(kept)
		if !ok {
			return false
		}
		st := s.(WorkerStatus)
		return len(st.Partitions) == partitions && st.Lag == 0 && st.Buffered == 0 && time.Since(st.At) < time.Second
	}
	waitFor(t, kept+" to hold every partition, caught up", caughtUp)
	// the messages the lost worker held come again after AckWait and are
	// dropped as copies; give them time to
	time.Sleep(3 * time.Second)
	waitFor(t, kept+" caught up again", caughtUp)
	select {
	case err := <-done[kept]:
		t.Fatalf("%s stopped: %v", kept, err)
	default:
	}
	sameFindings(t, js, want)

	g, err := ReadGroup(context.Background(), js, "fleet")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Workers) != 1 || g.Workers[0].Worker != kept || g.Workers[0].Events == 0 {
		t.Errorf("the group's status after the loss: %+v", g.Workers)
	}
}

// waitFor polls cond for up to 60 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
