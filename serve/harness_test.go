package serve_test

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/serve/servetest"
	gossh "golang.org/x/crypto/ssh"
)

// loaded is shown once a console has drawn its first rows ("74 hits" can
// come before them): a key typed earlier has no event to act on.
const loaded = "▸ 09:52:10.000"

// fixtureDir ingests the console fixture into a workspace and closes it,
// as cordon ingest leaves one for cordon serve.
func fixtureDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "fixture-incident")
	ws, err := incident.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ws.Ingest(context.Background(), []string{incidenttest.ConsoleFixture()}, incident.IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Path, r.Err)
		}
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// syncBuffer is a log the server writes from many goroutines.
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

// server is a running server under test.
type server struct {
	*serve.Server
	Addr   string
	Dir    string
	Log    *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// start serves dir on 127.0.0.1:0 with opt (Dir, Log and defaults filled
// in) until the test ends.
func start(t testing.TB, dir string, opt serve.Options) *server {
	t.Helper()
	log := &syncBuffer{}
	opt.Dir = dir
	opt.Log = slog.New(slog.NewTextHandler(log, nil))
	if opt.Grace == 0 {
		opt.Grace = 2 * time.Second
	}
	srv, err := serve.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{Server: srv, Addr: ln.Addr().String(), Dir: dir, Log: log, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		s.Stop(t)
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return s
}

// Stop shuts the server down and waits for Serve to return.
func (s *server) Stop(t testing.TB) error {
	s.cancel()
	select {
	case err, ok := <-s.done:
		if ok {
			close(s.done)
		}
		return err
	case <-time.After(20 * time.Second):
		t.Error("server did not stop within 20s")
		return nil
	}
}

// dial connects with key as user, checking the host key.
func (s *server) dial(t testing.TB, user string, key servetest.Key) *gossh.Client {
	t.Helper()
	c, err := servetest.Dial(s.Addr, user, s.Fingerprint(), gossh.PublicKeys(key.Signer))
	if err != nil {
		t.Fatalf("dial as %s: %v", user, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// keysFile writes keys to a fresh authorized_keys file.
func keysFile(t testing.TB, name string, keys ...servetest.Key) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	servetest.WriteKeys(t, p, keys...)
	return p
}
