package watch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet"
)

// The child side of TestWatchKilledRestarts: a watcher in its own process,
// so that the test can kill it without warning.
const childEnv = "CORDON_WATCH_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(watchChild())
	}
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerChild())
	}
	os.Exit(m.Run())
}

func watchChild() int {
	_, js, err := fleet.Connect(os.Getenv(childEnv+"_URL"), "child", 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	w, err := New(js, Config{Durable: os.Getenv(childEnv), Lateness: 2 * time.Second, Idle: time.Second, AckWait: 2 * time.Second})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := w.Run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// A watcher stopped mid-stream (its context cancelled between two batches,
// twice) and started again publishes every finding, none created twice.
func TestWatchCancelledRestarts(t *testing.T) {
	_, js := bus(t)
	evs := sampleEvents(t, sample)
	want := oneShot(t, evs)
	// events come in slices while the watcher runs, so that it works in
	// many batches
	pubDone := make(chan error, 1)
	go func() {
		ctx := context.Background()
		for i := range evs {
			m, err := fleet.Encode(&evs[i])
			if err == nil {
				_, err = js.PublishMsg(ctx, m)
			}
			if err != nil {
				pubDone <- err
				return
			}
			if i%25 == 24 {
				time.Sleep(10 * time.Millisecond)
			}
		}
		pubDone <- nil
	}()
	// the first run stops right after its first batch that changed a
	// finding, the second after its second
	for round := range 2 {
		w, err := New(js, Config{Durable: "restarts", Lateness: 2 * time.Second, Idle: time.Second, AckWait: 2 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		changed := 0
		w.cfg.Batch = func(b Batch) {
			if len(b.Created)+len(b.Updated)+len(b.Withdrawn) > 0 {
				if changed++; changed == round+1 {
					cancel()
				}
			}
		}
		if err := w.Run(ctx); err != nil {
			t.Fatal(err)
		}
		if ctx.Err() == context.DeadlineExceeded {
			t.Fatalf("round %d: %d batch(es) changed findings in 30s", round, changed)
		}
		cancel()
		t.Logf("round %d: stopped after %d batch(es) that changed findings: %+v", round, changed, w.Stats())
	}
	if err := <-pubDone; err != nil {
		t.Fatal(err)
	}
	n := len(published(t, js))
	if n == 0 {
		t.Fatal("nothing published before the watcher was stopped: the restart would prove nothing")
	}
	s := watch(t, js, Config{Durable: "restarts", Lateness: 2 * time.Second, Idle: time.Second, AckWait: 2 * time.Second})
	t.Logf("%d message(s) before the last start; then %+v", n, s)
	sameFindings(t, js, want)
}

// A watcher process killed with SIGKILL while events still come, and
// started again, publishes every finding, none created twice.
func TestWatchKilledRestarts(t *testing.T) {
	url, js := bus(t)
	evs := sampleEvents(t, sample)
	want := oneShot(t, evs)
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"=killed", childEnv+"_URL="+url)
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	defer child.Process.Kill()
	// publish in slices while it watches, until it has published findings
	half := len(evs) / 2
	sent := 0
	deadline := time.Now().Add(60 * time.Second)
	for sent < half || len(published(t, js)) == 0 {
		if sent < len(evs) {
			next := min(sent+25, len(evs))
			publishEvents(t, js, evs[sent:next])
			sent = next
		}
		select {
		case err := <-exited:
			t.Fatalf("the watcher ended (%v)", err)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the watcher published nothing in 60s")
		}
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-exited
	before := len(published(t, js))
	if sent == len(evs) {
		t.Fatal("every event was sent before the kill: the test needs it killed mid-stream")
	}
	publishEvents(t, js, evs[sent:])
	s := watch(t, js, Config{Durable: "killed", Lateness: 2 * time.Second, Idle: time.Second, AckWait: 2 * time.Second})
	t.Logf("killed after %d of %d events sent and %d message(s) published; restarted: %+v", sent, len(evs), before, s)
	sameFindings(t, js, want)
}
