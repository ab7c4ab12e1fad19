package watch

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/nats-io/nats.go/jetstream"
)

// publishRetrying publishes evs in order, trying each again while the
// cluster elects a new leader for the stream.
func publishRetrying(t *testing.T, js jetstream.JetStream, evs []evidence.Event) {
	t.Helper()
	for i := range evs {
		m, err := fleet.Encode(&evs[i])
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_, err := js.PublishMsg(ctx, m) // Nats-Msg-Id: a retry of a stored one is a duplicate
			cancel()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("publish %s: %v", evs[i].ID, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

// On a three-server cluster, with the stream, the findings stream and the
// buckets kept by all three, a group of two workers goes on when the
// server leading the events' stream is stopped mid-stream: the findings
// stream ends with the one-shot engine's findings, each created once.
func TestWorkersSurviveTheLossOfAClusterServer(t *testing.T) {
	servers, urls := fleettest.Cluster(t, 3)
	nc, js, err := fleet.Connect(urls, "test", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := context.Background()
	if _, err := fleet.EnsureStream(ctx, js, fleet.StreamConfig{Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	evs := sampleEvents(t, "shared-volume-token")
	want := oneShot(t, evs)
	const partitions = 2
	var statuses sync.Map
	for _, name := range []string{"worker-a", "worker-b"} {
		wnc, wjs, err := fleet.Connect(urls, name, 0)
		if err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		cfg := WorkerConfig{
			Config: Config{Log: slog.New(slog.NewTextHandler(testLog{t}, nil)), Durable: "ha", Replicas: 3, Lateness: 2 * time.Second, Idle: 500 * time.Millisecond, AckWait: 2 * time.Second},
			Worker: name, Partitions: partitions, Lease: 2 * time.Second,
			Status: func(s WorkerStatus) { statuses.Store(name, s) },
		}
		go func() {
			err := RunWorker(wctx, wjs, cfg)
			if err != nil {
				t.Logf("%s: %v", name, err)
			}
			done <- err
		}()
		t.Cleanup(func() { cancel(); <-done; wnc.Close() })
	}
	caughtUp := func() bool {
		held, events := 0, int64(0)
		for _, name := range []string{"worker-a", "worker-b"} {
			s, ok := statuses.Load(name)
			if !ok {
				return false
			}
			st := s.(WorkerStatus)
			if st.Lag != 0 || st.Buffered != 0 || time.Since(st.At) > 2*time.Second {
				return false
			}
			held += len(st.Partitions)
			events += st.Events
		}
		return held == partitions && events > 0
	}
	half := len(evs) / 2
	publishRetrying(t, js, evs[:half])
	waitFor(t, "the workers to read the first half", caughtUp)

	s, err := js.Stream(ctx, fleet.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	leader := info.Cluster.Leader
	for _, srv := range servers {
		if srv.Name() == leader {
			srv.Shutdown()
			srv.WaitForShutdown()
		}
	}
	t.Logf("stopped %s, the leader of %s", leader, fleet.DefaultStream)

	publishRetrying(t, js, evs[half:])
	waitFor(t, "the workers to read the rest", caughtUp)
	time.Sleep(3 * time.Second) // what was held comes again after AckWait
	waitFor(t, "the workers caught up again", caughtUp)
	// a worker publishes what it found after its pass is idle, and one
	// whose publication met the election retries: the findings come, late
	waitFor(t, "the findings of the whole stream", func() bool {
		got, _ := fold(published(t, js))
		return summary(got) == summary(want)
	})
	sameFindings(t, js, want)
}

// testLog writes a worker's log lines to the test's log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
