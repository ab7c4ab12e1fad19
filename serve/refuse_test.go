package serve_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/serve/servetest"
	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

func TestServeRefusesUnknownKey(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	mallory := servetest.NewKey(t, "mallory@elsewhere")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice)})
	if c, err := servetest.Dial(s.Addr, "mallory", "", gossh.PublicKeys(mallory.Signer)); err == nil {
		c.Close()
		t.Fatal("an unknown key got in")
	}
	log := s.Log.String()
	for _, want := range []string{"refused unknown key", "user=mallory", "remote=127.0.0.1:", mallory.Fingerprint()} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if n := len(journalEntries(t, dir)); n != 0 {
		t.Errorf("a refused login was journaled (%d entries)", n)
	}
}

func TestServeRefusesPasswordAndKeyboardInteractive(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice)})
	asked := false
	for name, auth := range map[string]gossh.AuthMethod{
		"password": gossh.Password("hunter2"),
		"keyboard-interactive": gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
			asked = true
			return nil, nil
		}),
	} {
		c, err := servetest.Dial(s.Addr, "alice", "", auth)
		if err == nil {
			c.Close()
			t.Errorf("%s authentication got in", name)
			continue
		}
		if !strings.Contains(err.Error(), "unable to authenticate") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if asked {
		t.Error("the server started a keyboard-interactive exchange")
	}
}

// TestServeNoWayOut: no shell or arbitrary command, no forwarding of ports,
// agent or X11, no subsystem.
func TestServeNoWayOut(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	ran := false
	s := start(t, dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Exec: func(context.Context, *incident.Workspace, []string, io.Writer, io.Writer) int {
			ran = true
			return 0
		},
	})
	c := s.dial(t, "alice", alice)

	for _, cmd := range []string{"bash", "sh -c id", "/bin/sh", "findings --incident /etc", "search --json --incident=/tmp x", "report --out /tmp/x", "scp -t /tmp"} {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out, err := sess.CombinedOutput(cmd)
		var exit *gossh.ExitError
		if !errors.As(err, &exit) || exit.ExitStatus() == 0 {
			t.Errorf("%q: err %v, want a non-zero exit", cmd, err)
		}
		if !strings.Contains(string(out), "not available over SSH") && !strings.Contains(string(out), "not allowed over SSH") && !strings.Contains(string(out), "takes no arguments") {
			t.Errorf("%q: no reason given: %q", cmd, out)
		}
	}
	if ran {
		t.Error("a refused command reached Exec")
	}

	if _, err := c.Dial("tcp", s.Addr); err == nil {
		t.Error("local port forwarding (direct-tcpip) was accepted")
	}
	if ln, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
		t.Error("reverse port forwarding (tcpip-forward) was accepted")
	}

	for _, want := range []string{`"refused channel" type=direct-tcpip`, `"refused request" request=tcpip-forward`} {
		if !strings.Contains(s.Log.String(), want) {
			t.Errorf("the log lacks %q", want)
		}
	}

	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := agent.RequestAgentForwarding(sess); err == nil {
		t.Error("agent forwarding was accepted")
	}
	ok, err := sess.SendRequest("x11-req", true, gossh.Marshal(struct {
		Single        bool
		Proto, Cookie string
		Screen        uint32
	}{false, "MIT-MAGIC-COOKIE-1", "00", 0}))
	if ok || err != nil {
		t.Errorf("x11 forwarding: ok %v, err %v", ok, err)
	}
	if err := sess.RequestSubsystem("sftp"); err == nil {
		t.Error("the sftp subsystem was accepted")
	}
	sess.Close()
}

// TestServeNoTerminal: a shell without a PTY gets a clear message and ends.
func TestServeNoTerminal(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice)})
	sess, err := s.dial(t, "alice", alice).NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	sess.Stderr = &stderr
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	err = sess.Wait()
	var exit *gossh.ExitError
	if !errors.As(err, &exit) || exit.ExitStatus() != 1 {
		t.Errorf("exit: %v, want status 1", err)
	}
	if !strings.Contains(stderr.String(), "needs a terminal") || !strings.Contains(stderr.String(), "ssh -t") {
		t.Errorf("message: %q", stderr.String())
	}
}

// TestServeCommands: the allowed commands reach Exec with exactly the
// flags allowed and the query after "--"; the session identifies its actor.
func TestServeCommands(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	var mu sync.Mutex
	var got [][]string
	s := start(t, dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Exec: func(ctx context.Context, _ *incident.Workspace, args []string, stdout, stderr io.Writer) int {
			mu.Lock()
			got = append(got, args)
			mu.Unlock()
			a, ok := serve.ActorFrom(ctx)
			if !ok || a.Name != "alice" || a.Key != alice.Fingerprint() || a.Comment != "alice@oncall" {
				io.WriteString(stderr, "wrong actor\n")
				return 9
			}
			io.WriteString(stdout, `{"ok":true}`+"\n")
			return 0
		},
	})
	c := s.dial(t, "alice", alice)
	for cmd, want := range map[string]string{
		"findings --json":               "findings --json",
		"findings":                      "findings",
		"search --json agent:agent-7":   "search --json -- agent:agent-7",
		"search --json -- -kind:dns":    "search --json -- -kind:dns",
		"search 'curl metadata' --json": "search --json -- curl metadata",
		"report":                        "report",
	} {
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		out, err := sess.Output(cmd)
		if err != nil || string(out) != "{\"ok\":true}\n" {
			t.Errorf("%q: %q, %v", cmd, out, err)
		}
		mu.Lock()
		last := strings.Join(got[len(got)-1], " ")
		mu.Unlock()
		if last != want {
			t.Errorf("%q ran %q, want %q", cmd, last, want)
		}
	}
}

// TestServeHostKeyPersists: the host key is made once, mode 0600, and the
// fingerprint survives a restart; a key others can read is refused.
func TestServeHostKeyPersists(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	auth := keysFile(t, "authorized_keys", alice)
	first, err := serve.New(serve.Options{Dir: dir, AuthorizedKeys: auth})
	if err != nil {
		t.Fatal(err)
	}
	fp := first.Fingerprint()
	if !first.HostKeyCreated() || !strings.HasPrefix(fp, "SHA256:") {
		t.Fatalf("created %v, fingerprint %q", first.HostKeyCreated(), fp)
	}
	first.Close()
	path := filepath.Join(dir, serve.HostKeyFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("host key mode %04o, want 0600", fi.Mode().Perm())
	}

	s := start(t, dir, serve.Options{AuthorizedKeys: auth})
	if s.HostKeyCreated() || s.Fingerprint() != fp {
		t.Errorf("after restart: created %v, fingerprint %s, want %s", s.HostKeyCreated(), s.Fingerprint(), fp)
	}
	// The client sees the same key.
	s.dial(t, "alice", alice)
	s.Stop(t)

	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if srv, err := serve.New(serve.Options{Dir: dir, AuthorizedKeys: auth}); err == nil {
		srv.Close()
		t.Error("a host key others can read was used")
	} else if !errors.Is(err, serve.ErrHostKey) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("error %v", err)
	}
}

// TestServeAuthorizedKeysReread: adding and removing a key takes effect on
// the next login, without a restart.
func TestServeAuthorizedKeysReread(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	bob := servetest.NewKey(t, "bob@oncall")
	auth := keysFile(t, "authorized_keys", alice)
	s := start(t, dir, serve.Options{AuthorizedKeys: auth})
	try := func(user string, k servetest.Key) error {
		c, err := servetest.Dial(s.Addr, user, s.Fingerprint(), gossh.PublicKeys(k.Signer))
		if err == nil {
			c.Close()
		}
		return err
	}
	if try("bob", bob) == nil {
		t.Fatal("bob got in before being added")
	}
	servetest.WriteKeys(t, auth, alice, bob)
	if err := try("bob", bob); err != nil {
		t.Fatalf("bob added but refused: %v", err)
	}
	// Same size, later time: still noticed.
	time.Sleep(10 * time.Millisecond)
	servetest.WriteKeys(t, auth, bob, alice)
	servetest.WriteKeys(t, auth, bob)
	if try("alice", alice) == nil {
		t.Error("alice removed but still let in")
	}
	if err := try("bob", bob); err != nil {
		t.Errorf("bob refused: %v", err)
	}
	os.Remove(auth)
	if try("bob", bob) == nil {
		t.Error("a key got in with the authorized keys file gone")
	}
}

// TestServeDropsStalledConnections: a client that connects and never
// authenticates is cut off after the handshake timeout.
func TestServeDropsStalledConnections(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{AuthorizedKeys: keysFile(t, "authorized_keys", alice), Handshake: 300 * time.Millisecond})
	c, err := net.Dial("tcp", s.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	began := time.Now()
	_, err = io.ReadAll(c) // the server's banner, then the close
	if err != nil {
		t.Fatalf("the connection was not closed by the server: %v", err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("closed after %s", d)
	}
	// A client that gets in keeps its session past the timeout.
	term := servetest.Open(t, s.dial(t, "alice", alice), 100, 30)
	term.WaitFor(loaded, wait)
	time.Sleep(600 * time.Millisecond)
	term.Type("?")
	term.WaitFor("HELP", wait)
}

// TestServeWritesNoKeyInWorkingDirectory: the SSH library makes a key of
// its own in the working directory when a server has none yet; the host
// key must be in place before that check.
func TestServeWritesNoKeyInWorkingDirectory(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	srv, err := serve.New(serve.Options{Dir: dir, AuthorizedKeys: keysFile(t, "authorized_keys", alice)})
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	for _, name := range []string{"id_ed25519", "id_ed25519.pub"} {
		if _, err := os.Stat(name); err == nil {
			os.Remove(name)
			t.Errorf("%s was written in the working directory", name)
		}
	}
}

// TestServeSurvivesAPanickingSession: a panic in one session ends that
// session, not the server.
func TestServeSurvivesAPanickingSession(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	s := start(t, dir, serve.Options{
		AuthorizedKeys: keysFile(t, "authorized_keys", alice),
		Exec: func(_ context.Context, _ *incident.Workspace, args []string, stdout, _ io.Writer) int {
			if args[0] == "report" {
				panic("report broke")
			}
			io.WriteString(stdout, "fine\n")
			return 0
		},
	})
	c := s.dial(t, "alice", alice)
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	out, err := sess.CombinedOutput("report")
	var exit *gossh.ExitError
	if !errors.As(err, &exit) || exit.ExitStatus() != 1 || !strings.Contains(string(out), "internal error") {
		t.Errorf("report: %v %q", err, out)
	}
	if sess, err = c.NewSession(); err != nil {
		t.Fatal(err)
	}
	if out, err := sess.Output("findings"); err != nil || string(out) != "fine\n" {
		t.Errorf("after the panic: %q %v", out, err)
	}
	if !strings.Contains(s.Log.String(), "report broke") {
		t.Error("the panic is not in the server log")
	}
}

// TestServeRefusesKeyFileOthersCanWrite: whoever can write authorized_keys
// can let themselves in, so such a file is not trusted, at start or later.
func TestServeRefusesKeyFileOthersCanWrite(t *testing.T) {
	dir := fixtureDir(t)
	alice := servetest.NewKey(t, "alice@oncall")
	auth := keysFile(t, "authorized_keys", alice)
	if err := os.Chmod(auth, 0o666); err != nil {
		t.Fatal(err)
	}
	if srv, err := serve.New(serve.Options{Dir: dir, AuthorizedKeys: auth}); err == nil {
		srv.Close()
		t.Fatal("started with an authorized_keys file anyone can write")
	} else if !strings.Contains(err.Error(), "chmod go-w") {
		t.Errorf("error %v", err)
	}
	os.Chmod(auth, 0o600)
	s := start(t, dir, serve.Options{AuthorizedKeys: auth})
	s.dial(t, "alice", alice).Close()
	os.Chmod(auth, 0o620)
	if c, err := servetest.Dial(s.Addr, "alice", "", gossh.PublicKeys(alice.Signer)); err == nil {
		c.Close()
		t.Error("a key got in from a file others can write")
	}
}

// A key with command= was skipped though docs/ssh.md said such options
// were "accepted and ignored". Refusing is the safe reading (the server
// cannot run the forced command or honour from=), so it refuses the key
// and the log says which line and which options, and the docs say so.
func TestServeRefusesKeyWithForcedCommand(t *testing.T) {
	dir := fixtureDir(t)
	robot := servetest.NewKey(t, "robot@backup")
	keys := filepath.Join(t.TempDir(), "authorized_keys")
	line := `command="/usr/bin/backup",no-pty ` + robot.AuthorizedLine() + "\n"
	if err := os.WriteFile(keys, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	s := start(t, dir, serve.Options{AuthorizedKeys: keys})
	if c, err := servetest.Dial(s.Addr, "robot", s.Fingerprint(), gossh.PublicKeys(robot.Signer)); err == nil {
		c.Close()
		t.Fatal("a key with a forced command got in")
	}
	log := s.Log.String()
	for _, want := range []string{"key refused", "line=1", "options=\"command=, no-pty\"", "cannot honour"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "ssh.md"))
	if err != nil {
		t.Fatal(err)
	}
	if text := strings.Join(strings.Fields(string(doc)), " "); strings.Contains(text, "accepted and ignored") ||
		!strings.Contains(text, "with options in front of it (`from=`, `command=`, ...) is refused") {
		t.Errorf("docs/ssh.md does not say that a key with options is refused")
	}
}
