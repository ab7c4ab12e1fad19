// Package fleettest runs a real NATS server with JetStream inside a test
// process: loopback only, an ephemeral port, its store in the test's
// temporary folder.
package fleettest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
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
	return startOpts(t, opts)
}

func startOpts(t testing.TB, opts *server.Options) *server.Server {
	t.Helper()
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

// ServerEnv names a nats-server binary that a benchmark may run its server
// with, in a process of its own (its CPU and collector then are not the
// benchmark's): see URL.
const ServerEnv = "CORDON_BENCH_NATS_SERVER"

// URL is where a server for t listens: the binary ServerEnv names, started
// on loopback with its store in a temporary folder and stopped when t
// ends, or, without it, Server in the test's process.
func URL(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(ServerEnv)
	if bin == "" {
		return Server(t).ClientURL()
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	url := "nats://127.0.0.1:" + strconv.Itoa(port)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if nc, err := nats.Connect(url); err == nil {
			nc.Close()
			return url
		}
		if time.Now().After(end) {
			t.Fatalf("%s not ready on %s in 10 s", bin, url)
		}
	}
}
