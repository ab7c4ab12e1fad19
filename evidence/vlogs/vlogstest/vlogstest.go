// Package vlogstest starts a real VictoriaLogs for tests: the binary named
// by CORDON_VICTORIALOGS, on a loopback port, over a temporary folder.
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
	for attempt := 0; ; attempt++ {
		addr, err := start(t, bin)
		if err == nil {
			return "victorialogs://" + addr
		}
		if attempt == 2 {
			t.Fatal(err)
		}
	}
}

func start(t testing.TB, bin string) (string, error) {
	port, err := freePort()
	if err != nil {
		return "", err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	var out syncBuffer
	cmd := exec.Command(bin,
		"-storageDataPath="+t.TempDir(),
		"-httpListenAddr="+addr,
		"-retentionPeriod=100y", // incidents are dated in the past: keep them
		"-futureRetention=100y",
		"-loggerLevel=ERROR",
		"-memory.allowedPercent=20",
	)
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
