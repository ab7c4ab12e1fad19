package serve_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/serve/servetest"
	gossh "golang.org/x/crypto/ssh"
)

// growingLedger writes the first n lines of the fixture's ledger to a new
// file and returns it with the lines left to append.
func growingLedger(t testing.TB, n int) (path string, rest []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(incidenttest.ConsoleFixture(), "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(b), "\n"), "\n")
	path = filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, lines[n:]
}

// eventCount is how many events the whole fixture ledger makes once
// indexed, counted on a workspace of its own.
func eventCount(t testing.TB) int64 {
	t.Helper()
	ws, err := incident.Create(filepath.Join(t.TempDir(), "count"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := ws.Ingest(context.Background(), []string{filepath.Join(incidenttest.ConsoleFixture(), "ledger.jsonl")}, incident.IngestOptions{}); err != nil {
		t.Fatal(err)
	}
	return ws.Counts().Total
}

// TestServeFollowsGrowingIngest: with evidence to follow, the server
// creates the workspace, and lines appended to the file reach every open
// console, a responder's and an observer's, within seconds.
func TestServeFollowsGrowingIngest(t *testing.T) {
	input, rest := growingLedger(t, 10)
	total := eventCount(t)
	dir := filepath.Join(t.TempDir(), "live-incident")
	alice := servetest.NewKey(t, "alice@oncall")
	olive := servetest.NewKey(t, "olive@audit")
	s := start(t, dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Observers:      keysFile(t, "observers", olive),
		Inputs:         []string{input},
	})
	a := servetest.Open(t, s.dial(t, "alice", alice), 120, 30)
	o := servetest.Open(t, s.dial(t, "olive", olive), 120, 30)
	a.WaitFor("following 1 file", wait)
	o.WaitFor("following 1 file", wait)

	f, err := os.OpenFile(input, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(f, strings.Join(rest, "")+"\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := fmt.Sprintf("%d events", total)
	a.WaitFor(want, wait)
	o.WaitFor(want, wait)
	if u := s.Ingest().Latest(); !u.Following || u.Err != nil {
		t.Errorf("ingest: %+v", u)
	}
}

// TestServeCommandsOnFollowedIngest: while the server holds the index for
// writing, a command gets that open workspace and sees what was appended.
func TestServeCommandsOnFollowedIngest(t *testing.T) {
	input, rest := growingLedger(t, 10)
	dir := filepath.Join(t.TempDir(), "live-incident")
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Inputs:         []string{input},
		Exec: func(ctx context.Context, ws *incident.Workspace, args []string, stdout, _ io.Writer) int {
			hits, err := ws.Search(ctx, evidence.Request{Query: evidence.MustParse("*"), Limit: 1})
			if err != nil {
				return 1
			}
			fmt.Fprintf(stdout, "%d\n", hits.Total)
			return 0
		},
	})
	count := func() string {
		sess, err := s.dial(t, "alice", alice).NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out, err := sess.Output("findings")
		if err != nil {
			t.Fatalf("findings: %v", err)
		}
		return strings.TrimSpace(string(out))
	}
	deadline := time.Now().Add(wait)
	for !s.Ingest().Latest().Following && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	before := count()
	// A rotation: the file moves aside and a new one takes its name.
	if err := os.Rename(input, input+".1"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, []byte(strings.Join(rest, "")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for count() == before {
		if time.Now().After(deadline) {
			t.Fatalf("the command still sees %s events after the rotation", before)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestServeIdleTimeout: a console that sends nothing for the idle timeout
// is told so and closed; one that types stays.
func TestServeIdleTimeout(t *testing.T) {
	const idle = 1500 * time.Millisecond
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice), IdleTimeout: idle})
	busy := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
	quiet := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
	busy.WaitFor(loaded, wait)
	quiet.WaitFor(loaded, wait)
	began := time.Now()
	for time.Since(began) < 2*idle {
		busy.Type("j")
		time.Sleep(idle / 5)
	}
	quiet.WaitFor("idle for 1.5s, closing", wait)
	if !quiet.WaitEOF(wait) {
		t.Error("the idle session stayed open")
	}
	if strings.Contains(busy.Screen(), "idle for") {
		t.Error("a console that types was closed as idle")
	}
	busy.WaitFor("idle for 1.5s, closing", wait) // once it stops typing
	if !strings.Contains(s.Log.String(), "console idle; closing") {
		t.Errorf("the log does not say why:\n%s", s.Log.String())
	}
}

// TestServeMaxSessions: past the bound a session, an observer's too, is
// told the server is full; once one leaves, the next gets in.
func TestServeMaxSessions(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	olive := servetest.NewKey(t, "olive@audit")
	s := start(t, dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Observers:      keysFile(t, "observers", olive),
		MaxSessions:    2,
	})
	first := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
	observer := servetest.Open(t, s.dial(t, "olive", olive), 100, 30)
	first.WaitFor(loaded, wait)
	observer.WaitFor(loaded, wait)

	full := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
	full.WaitFor("the server is full (2 sessions); try again later", wait)
	if !full.WaitEOF(wait) {
		t.Fatal("the session past the bound stayed open")
	}
	sess, err := s.dial(t, "alice", alice).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.CombinedOutput("findings")
	var exit *gossh.ExitError
	if !errors.As(err, &exit) || !strings.Contains(string(out), "the server is full") {
		t.Errorf("a command past the bound: %v %q", err, out)
	}

	observer.Type("q")
	if !observer.WaitEOF(wait) {
		t.Fatal("q did not end the observer's console")
	}
	deadline := time.Now().Add(wait)
	for {
		next := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
		if next.Wait(loaded, 2*time.Second) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no console after a session left:\n%s", next.Screen())
		}
	}
}
