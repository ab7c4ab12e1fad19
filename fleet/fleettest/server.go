// Package fleettest runs a real NATS server with JetStream inside a test
// process: loopback only, an ephemeral port, its store in the test's
// temporary folder.
package fleettest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// Server starts a JetStream server for t and stops it when t ends. The
// returned server's ClientURL is where to connect; Shutdown stops it early
// (a test of a server gone mid-ship).
func Server(t testing.TB) *server.Server {
	t.Helper()
	return ServerAt(t, t.TempDir())
}

// ServerAt is Server with its store in dir: a second server started on the
// same dir after the first stopped finds the streams it kept.
func ServerAt(t testing.TB, dir string) *server.Server {
	t.Helper()
	return start(t, dir, nil)
}

// ServerWith is Server with options set by set (a smaller max_payload).
func ServerWith(t testing.TB, set func(*server.Options)) *server.Server {
	t.Helper()
	return start(t, t.TempDir(), set)
}

func start(t testing.TB, dir string, set func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{
		Host:      "127.0.0.1",
		Port:      server.RANDOM_PORT,
		JetStream: true,
		StoreDir:  dir,
		NoLog:     true,
		NoSigs:    true,
	}
	if set != nil {
		set(opts)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("nats server: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		t.Fatal("nats server not ready in 10s")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// Messages is how many messages stream holds.
func Messages(t testing.TB, js jetstream.JetStream, stream string) uint64 {
	t.Helper()
	s, err := js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}
