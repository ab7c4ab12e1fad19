package watch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet"
)

// workerEnv names the worker a child process runs (TestWorkersKilledThreeTimes).
const workerEnv = "CORDON_WATCH_TEST_WORKER"

func workerChild() int {
	_, js, err := fleet.Connect(os.Getenv(childEnv+"_URL"), "child", 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	err = RunWorker(context.Background(), js, WorkerConfig{
		Config: Config{Durable: "killed-group", Lateness: 2 * time.Second, Idle: 500 * time.Millisecond, AckWait: 2 * time.Second},
		Worker: os.Getenv(workerEnv), Partitions: 2, Lease: time.Second,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// startWorker runs a worker of group killed-group in a process of its own.
func startWorker(t *testing.T, url, name string) *exec.Cmd {
	t.Helper()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), workerEnv+"="+name, childEnv+"_URL="+url)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	return child
}

// Two worker processes share a group's two partitions; three times while
// events still come, one of them is killed with SIGKILL and another
// started: the findings stream ends with the one-shot engine's findings,
// each created once, and the group's lag returns to 0.
func TestWorkersKilledThreeTimes(t *testing.T) {
	url, js := bus(t)
	evs := sampleEvents(t, "shared-volume-token")
	want := oneShot(t, evs)
	workers := []*exec.Cmd{startWorker(t, url, "w0"), startWorker(t, url, "w1")}
	next := 2
	sent, kills := 0, 0
	for sent < len(evs) {
		end := min(sent+25, len(evs))
		publishEvents(t, js, evs[sent:end])
		sent = end
		time.Sleep(40 * time.Millisecond)
		if kills < 3 && sent >= (kills+1)*len(evs)/4 {
			victim := workers[kills%2]
			if err := victim.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			victim.Wait()
			workers[kills%2] = startWorker(t, url, "w"+strconv.Itoa(next))
			next++
			kills++
			t.Logf("kill %d after %d of %d events; %d finding message(s) so far", kills, sent, len(evs), len(published(t, js)))
		}
	}
	if kills != 3 {
		t.Fatalf("%d kills", kills)
	}
	idle := func() bool {
		g, err := ReadGroup(context.Background(), js, "killed-group")
		if err != nil || len(g.Leases) != 2 {
			return false
		}
		for i := range 2 {
			c, err := js.Consumer(context.Background(), fleet.DefaultStream, "killed-group"+Partition{Index: i, Count: 2}.name())
			if err != nil {
				return false
			}
			info, err := c.Info(context.Background())
			if err != nil || info.NumPending+uint64(info.NumAckPending) != 0 || info.Delivered.Stream == 0 {
				return false
			}
		}
		return true
	}
	waitFor(t, "the group to catch up", idle)
	time.Sleep(3 * time.Second) // what the killed held comes again after AckWait
	waitFor(t, "the group to catch up again", idle)
	sameFindings(t, js, want)
}
