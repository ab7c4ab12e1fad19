// Package watchtest runs a watcher answering verdicts on a bundled
// sample, on a NATS server of the test's own (loopback only), for the
// tests and benchmarks of what asks it.
package watchtest

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/fleet/fleettest"
	"github.com/cordon-ir/cordon/watch"
	"github.com/nats-io/nats.go/jetstream"
)

// Durable is the watcher's durable name.
const Durable = "verdicts"

// Verdicts ships the sample folder dir as cordon ship sends it, runs a
// watcher answering verdicts under vc on it until it has taken every
// event, and returns it with the server's URL and a client of it. The
// watcher stops when t ends; stop stops it sooner and says how it ended.
func Verdicts(t testing.TB, dir string, vc watch.VerdictConfig) (w *watch.Watcher, url string, js jetstream.JetStream, stop func() error) {
	t.Helper()
	url = fleettest.URL(t)
	nc, js, err := fleet.Connect(url, "watchtest", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx := context.Background()
	if _, err := fleet.EnsureStream(ctx, js, fleet.StreamConfig{}); err != nil {
		t.Fatal(err)
	}
	st, err := fleet.OpenState(filepath.Join(t.TempDir(), "ship.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := fleet.Ship(ctx, fleet.NewPublisher(js, 0), st, []string{dir}, fleet.ShipOptions{}); err != nil {
		t.Fatal(err)
	}
	// the watcher's own connection, as cordon watch has its own process
	_, wjs, err := fleet.Connect(url, "watchtest watcher", 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err = watch.New(wjs, watch.Config{Durable: Durable, Idle: 300 * time.Millisecond, Verdicts: &vc})
	if err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(rctx) }()
	var once bool
	var result error
	stop = func() error {
		if !once {
			once = true
			cancel()
			result = <-done
		}
		return result
	}
	t.Cleanup(func() {
		_ = stop()
		wjs.Conn().Close()
	})
	idle(t, js, w, done)
	return w, url, js, stop
}

// idle waits until the consumer has nothing pending, the watcher holds
// nothing and its verdicts are answered from all it took, twice in a
// row: a watcher settles a step's messages once published, and under load
// may copy what it published for the verdicts up to a second later.
func idle(t testing.TB, js jetstream.JetStream, w *watch.Watcher, done chan error) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(60 * time.Second)
	for calm := 0; calm < 2; {
		select {
		case err := <-done:
			t.Fatalf("watcher stopped: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("watcher not idle after 60s: %+v", w.Stats())
		}
		c, err := js.Consumer(ctx, fleet.DefaultStream, Durable)
		if err != nil {
			calm = 0
			continue
		}
		info, err := c.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		s := w.Stats()
		if info.NumPending+uint64(info.NumAckPending) == 0 && s.Buffered == 0 && !s.ViewStale && info.Delivered.Stream > 0 {
			calm++
		} else {
			calm = 0
		}
	}
}
