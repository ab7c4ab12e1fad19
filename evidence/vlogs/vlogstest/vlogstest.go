// Package vlogstest starts a real VictoriaLogs for tests, a single node or
// a small cluster: the binary named by CORDON_VICTORIALOGS, on loopback
// ports, over temporary folders.
// Without it a test is skipped, or fails when CORDON_REQUIRE_VICTORIALOGS=1
// (as .ci/run sets it).
package vlogstest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Env names the binary; Require makes its absence a failure.
const (
	Env     = "CORDON_VICTORIALOGS"
	Require = "CORDON_REQUIRE_VICTORIALOGS"
)

// Start runs a VictoriaLogs single node for t and returns its address as
// a store names it (victorialogs://127.0.0.1:port); it is stopped when t
// ends.
func Start(t testing.TB) string {
	t.Helper()
	return "victorialogs://" + run(t, binary(t), storageFlags(t))
}

// StartCluster runs a VictoriaLogs cluster for t from the same binary:
// storage nodes, each over a temporary folder, and a front node (insert
// and select) routing to them. It returns the front's address as a store
// names it and the storage nodes' as host:port.
func StartCluster(t testing.TB, storageNodes int) (front string, nodes []string) {
	t.Helper()
	bin := binary(t)
	for i := 0; i < storageNodes; i++ {
		nodes = append(nodes, run(t, bin, storageFlags(t)))
	}
	return "victorialogs://" + run(t, bin, []string{"-storageNode=" + strings.Join(nodes, ",")}), nodes
}

// storageFlags are a node's that keeps data: a temporary folder, and
// retention wide enough for incidents dated in the past.
func storageFlags(t testing.TB) []string {
	return []string{"-storageDataPath=" + t.TempDir(), "-retentionPeriod=100y", "-futureRetention=100y"}
}

// binary is the victoria-logs binary the environment names: without one
// the test is skipped, or fails when Require is set.
func binary(t testing.TB) string {
	t.Helper()
	bin := os.Getenv(Env)
	if bin == "" {
		if os.Getenv(Require) == "1" {
			t.Fatalf("%s=1 but %s is not set: build victoria-logs (see .ci/run) and point %s at it", Require, Env, Env)
		}
		t.Skipf("no VictoriaLogs: set %s to a victoria-logs binary to run this test", Env)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("%s=%s: %v", Env, bin, err)
	}
	return bin
}

// run starts one node with flags on a free loopback port (another try on
// another port if it is taken meanwhile) and returns its host:port.
func run(t testing.TB, bin string, flags []string) string {
	t.Helper()
	for attempt := 0; ; attempt++ {
		addr, err := start(t, bin, flags)
		if err == nil {
			return addr
		}
		if attempt == 2 {
			t.Fatal(err)
		}
	}
}

func start(t testing.TB, bin string, flags []string) (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var out syncBuffer
	cmd := exec.Command(bin, append([]string{
		"-httpListenAddr=" + addr,
		"-loggerLevel=ERROR",
		"-memory.allowedPercent=20",
	}, flags...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return "", fmt.Errorf("victoria-logs exited: %s", out.String())
		default:
		}
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return addr, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return "", fmt.Errorf("victoria-logs on %s did not answer in 20s: %s", addr, out.String())
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
