package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/serve/servetest"
)

// sshTmux runs OpenSSH clients in one tmux server, one tmux session per
// client, each 100×30 as a responder's terminal would be.
type sshTmux struct {
	t     *testing.T
	tmp   string
	tmux  func(args ...string) (string, error)
	srv   *served
	port  string
	known string
}

func newSSHTmux(t *testing.T, srv *served) *sshTmux {
	t.Helper()
	for _, bin := range []string{"ssh", "tmux"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed (CI installs openssh-client and tmux)", bin)
		}
	}
	tmp := t.TempDir()
	socket := fmt.Sprintf("cordon-test-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { tmux("kill-server") })
	_, port, _ := strings.Cut(srv.addr, ":")
	return &sshTmux{t: t, tmp: tmp, tmux: tmux, srv: srv, port: port, known: filepath.Join(tmp, "known_hosts")}
}

// connect opens `ssh -tt` as user with key in a tmux session of that name.
func (x *sshTmux) connect(user string, key servetest.Key) {
	x.t.Helper()
	x.connectSized(user, key, 100, 30)
}

// connectSized is connect in a w×h terminal.
func (x *sshTmux) connectSized(user string, key servetest.Key, w, h int) {
	x.t.Helper()
	keyPath := filepath.Join(x.tmp, user+"_ed25519")
	key.WritePrivate(x.t, keyPath)
	cmd := fmt.Sprintf("env TERM=xterm-256color ssh -tt -F /dev/null -i %s -p %s -o IdentitiesOnly=yes -o BatchMode=yes "+
		"-o StrictHostKeyChecking=accept-new -o UserKnownHostsFile=%s %s@127.0.0.1", keyPath, x.port, x.known, user)
	if out, err := x.tmux("new-session", "-d", "-s", user, "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), cmd); err != nil {
		x.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	if out, err := x.tmux("set-option", "-t", user, "remain-on-exit", "on"); err != nil {
		x.t.Fatalf("tmux set-option: %v\n%s", err, out)
	}
}

func (x *sshTmux) screen(user string) string {
	out, _ := x.tmux("capture-pane", "-p", "-t", user)
	return out
}

// wait polls user's screen until every part shows.
func (x *sshTmux) wait(user, what string, parts ...string) string {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := x.screen(user)
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(s, p)
		}
		if ok {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out waiting for %s on %s's terminal; it shows:\n%s\nserver:\n%s", what, user, s, x.srv.stderr.String())
		}
		time.Sleep(50 * time.Millisecond) // polling a real terminal
	}
}

func (x *sshTmux) send(user string, keys ...string) {
	x.tmux(append([]string{"send-keys", "-t", user}, keys...)...)
}

// TestServeSSHClientInTmux: OpenSSH's client in a real terminal. A
// responder's note on the timeline lands in the journal under their SSH user
// and key; another responder's Journal pane shows it live, and theirs shows
// back; an observer's note key says it is read-only. The host key ssh
// records on first connection is the one the server printed and the one
// ssh-keygen -lf shows for the .pub beside it.
func TestServeSSHClientInTmux(t *testing.T) {
	fixture, err := filepath.Abs(incidenttest.ConsoleFixture())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "incident")
	if code, _, errOut := cordon("ingest", "--incident", dir, fixture); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	alice := servetest.NewKey(t, "alice@oncall")
	bob := servetest.NewKey(t, "bob@oncall")
	olive := servetest.NewKey(t, "olive@audit")
	keys := t.TempDir()
	servetest.WriteKeys(t, filepath.Join(keys, "oncall.keys"), alice, bob)
	servetest.WriteKeys(t, filepath.Join(keys, "observers.keys"), olive)
	s := launchServe(t, dir, alice, "--authorized-keys", filepath.Join(keys, "oncall.keys"),
		"--observers", filepath.Join(keys, "observers.keys"))
	x := newSSHTmux(t, s)

	x.connect("alice", alice)
	x.wait("alice", "the console", "TIMELINE", "74 events")
	x.connect("bob", bob)
	x.wait("bob", "the console", "TIMELINE", "74 events")
	x.send("bob", "Tab", "Tab", "Tab", "Tab")
	x.wait("bob", "the journal", "JOURNAL")

	x.send("alice", "i")
	x.wait("alice", "the note input", "note on event")
	x.send("alice", "-l", "agent-7 still holds a credential")
	x.send("alice", "Enter")
	x.wait("alice", "the note saved", "note added")
	x.wait("bob", "alice's note in bob's journal", "agent-7 still holds a credential")

	x.send("alice", "Tab", "Tab", "Tab", "Tab")
	x.wait("alice", "the journal", "JOURNAL")
	x.send("bob", "BTab", "BTab", "BTab", "BTab")
	x.wait("bob", "the timeline", "TIMELINE")
	x.send("bob", "i")
	x.wait("bob", "the note input", "note on event")
	x.send("bob", "-l", "egress proxy creds rotated")
	x.send("bob", "Enter")
	x.wait("bob", "the note saved", "note added")
	x.wait("alice", "bob's note in alice's journal", "egress proxy creds rotated")

	x.connect("olive", olive)
	x.wait("olive", "the console", "TIMELINE", "74 events")
	x.send("olive", "i")
	x.wait("olive", "the read-only message", "read-only: observers cannot change the case")
	if strings.Contains(x.screen("olive"), "note on event") {
		t.Errorf("an observer's i opened a note:\n%s", x.screen("olive"))
	}

	j, err := journal.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := j.Entries()
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]journal.Entry{}
	for _, e := range entries {
		if e.Actor.Key == olive.Fingerprint() {
			t.Errorf("the observer wrote to the journal: %+v", e)
		}
		if e.Type == journal.EntryNote {
			notes[e.Text] = e
		}
	}
	for text, k := range map[string]servetest.Key{"agent-7 still holds a credential": alice, "egress proxy creds rotated": bob} {
		name, _, _ := strings.Cut(k.Comment, "@")
		want := journal.Actor{Name: name, Via: journal.ViaSSH, Key: k.Fingerprint(), Comment: k.Comment}
		if e, ok := notes[text]; !ok || e.Actor != want {
			t.Errorf("note %q: %+v, want by %+v", text, e.Actor, want)
		}
	}

	// What ssh pinned is the key the server printed, as ssh-keygen -lf
	// shows it for the host key's .pub (docs/ssh.md: verifying the host).
	for _, file := range []string{x.known, filepath.Join(dir, serve.HostKeyFile+".pub")} {
		out, err := exec.Command("ssh-keygen", "-lf", file).CombinedOutput()
		if err != nil {
			t.Fatalf("ssh-keygen -lf %s: %v %s", file, err, out) // it comes with ssh
		}
		if !strings.Contains(string(out), s.fingerprint) {
			t.Errorf("ssh-keygen -lf %s: %q, want %s", file, out, s.fingerprint)
		}
	}

	x.send("alice", "q")
	x.wait("alice", "ssh to exit", "Connection to 127.0.0.1 closed")
}

// TestServeFollowsEvidenceInTmux: `cordon serve --incident DIR FILE`
// creates the workspace and follows FILE; lines appended to it reach a
// console open over OpenSSH, whose header shows the new event count, and
// `ssh HOST findings --json` runs on the workspace the server holds.
func TestServeFollowsEvidenceInTmux(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(incidenttest.ConsoleFixture(), "ledger.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(b), "\n"), "\n")
	input := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(input, []byte(strings.Join(lines[:10], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "live")
	alice := servetest.NewKey(t, "alice@oncall")
	auth := filepath.Join(t.TempDir(), "authorized_keys")
	servetest.WriteKeys(t, auth, alice)
	s := launchServe(t, dir, alice, "--authorized-keys", auth, "--format", "cordon-ledger", input)
	x := newSSHTmux(t, s)
	x.connect("alice", alice)
	first := x.wait("alice", "the console following the file", "TIMELINE", "following 1 file")
	m := regexp.MustCompile(`(\d+) events`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("no event count in the header:\n%s", first)
	}

	f, err := os.OpenFile(input, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(lines[10:], "") + "\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := "49 events"
	if m[1] == "49" {
		t.Fatalf("the header counted every event before they were appended:\n%s", first)
	}
	x.wait("alice", "the appended events in the header", want)

	out, errOut, code := s.run(t, "findings --json")
	if code != 0 {
		t.Fatalf("findings on the followed workspace: %d %q", code, errOut)
	}
	checkJSONLines(t, "findings", out, "detector")
	if !strings.Contains(s.stderr.String(), "following "+input) {
		t.Errorf("serve does not say what it follows:\n%s", s.stderr.String())
	}
}
