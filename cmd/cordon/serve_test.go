package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/serve/servetest"
	gossh "golang.org/x/crypto/ssh"
)

// lockedBuffer is stderr written by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// served is `cordon serve` running in-process on a fixture incident.
type served struct {
	dir, addr, fingerprint string
	stderr                 *lockedBuffer
	key                    servetest.Key
}

func startServe(t *testing.T, extra ...string) *served {
	t.Helper()
	fixture, err := filepath.Abs(incidenttest.ConsoleFixture())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "incident")
	if code, _, errOut := cordon("ingest", "--incident", dir, fixture); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	key := servetest.NewKey(t, "alice@oncall")
	auth := filepath.Join(t.TempDir(), "authorized_keys")
	servetest.WriteKeys(t, auth, key)
	return launchServe(t, dir, key, append([]string{"--authorized-keys", auth}, extra...)...)
}

// launchServe runs `cordon serve --incident DIR --listen 127.0.0.1:0 ARGS`
// in-process until the test ends; key is the one run uses.
func launchServe(t *testing.T, dir string, key servetest.Key, extra ...string) *served {
	t.Helper()
	return launchServeArgs(t, dir, key, append([]string{"--incident", dir, "--listen", "127.0.0.1:0"}, extra...)...)
}

// launchServeArgs runs `cordon serve ARGS` in-process until the test
// ends; dir is what the test calls its folder, key the one run uses.
func launchServeArgs(t *testing.T, dir string, key servetest.Key, args ...string) *served {
	t.Helper()
	s := &served{dir: dir, stderr: &lockedBuffer{}, key: key}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- execute(ctx, &env{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: s.stderr}, append([]string{"serve"}, args...))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not stop")
		}
		if t.Failed() {
			t.Logf("serve stderr:\n%s", s.stderr.String())
		}
	})
	addrRe := regexp.MustCompile(`serving .* on (127\.0\.0\.1:\d+)\n`)
	fpRe := regexp.MustCompile(`host key fingerprint (SHA256:\S+)`)
	deadline := time.Now().Add(20 * time.Second)
	for {
		out := s.stderr.String()
		if m, f := addrRe.FindStringSubmatch(out), fpRe.FindStringSubmatch(out); m != nil && f != nil {
			s.addr, s.fingerprint = m[1], f[1]
			return s
		}
		select {
		case err := <-done:
			t.Fatalf("serve ended: %v\n%s", err, out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (s *served) run(t *testing.T, command string) (stdout, stderr string, code int) {
	t.Helper()
	c, err := servetest.Dial(s.addr, "alice", s.fingerprint, gossh.PublicKeys(s.key.Signer))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	var o, e bytes.Buffer
	sess.Stdout, sess.Stderr = &o, &e
	err = sess.Run(command)
	var exit *gossh.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitStatus()
	default:
		t.Fatalf("%s: %v", command, err)
	}
	return o.String(), e.String(), code
}

// TestServeRunsReadOnlyCommands: `ssh HOST findings --json` and `search
// --json` run the real subcommands on the served incident (while the
// server holds it); anything else is refused.
func TestServeRunsReadOnlyCommands(t *testing.T) {
	s := startServe(t)
	out, errOut, code := s.run(t, "findings --json")
	if code != 0 || out == "" {
		t.Fatalf("findings: %d %q %q", code, out, errOut)
	}
	checkJSONLines(t, "findings", out, "detector")

	out, errOut, code = s.run(t, "search --json curl")
	if code != 0 || out == "" {
		t.Fatalf("search: %d %q %q", code, out, errOut)
	}
	checkJSONLines(t, "search", out, "id")

	out, errOut, code = s.run(t, "report --format json")
	var report map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &report) != nil || len(report) == 0 {
		t.Errorf("report --format json: %d %q %q", code, tailString(out, 300), errOut)
	}
	if out, errOut, code = s.run(t, "report"); code != 0 || !strings.HasPrefix(out, "#") {
		t.Errorf("report: %d %q %q", code, tailString(out, 300), errOut)
	}

	for _, cmd := range []string{"bash", "sh -c id", "note --incident /tmp hello", "search --incident /etc x", "report -o /tmp/report.md", "export --format timesketch"} {
		if _, errOut, code := s.run(t, cmd); code == 0 || !strings.Contains(errOut, "over SSH") {
			t.Errorf("%q: exit %d, %q", cmd, code, errOut)
		}
	}
}

func checkJSONLines(t *testing.T, what, out, field string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v map[string]any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: not JSON: %q", what, sc.Text())
		}
		if _, ok := v[field]; !ok {
			t.Fatalf("%s: no %q in %q", what, field, sc.Text())
		}
	}
}

// TestServePrintsHostKeyFingerprint: the host key is made in the
// workspace, 0600, and the fingerprint printed is the one clients see.
func TestServePrintsHostKeyFingerprint(t *testing.T) {
	s := startServe(t)
	fi, err := os.Stat(filepath.Join(s.dir, serve.HostKeyFile))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("host key mode %04o", fi.Mode().Perm())
	}
	if !strings.Contains(s.stderr.String(), "generated host key") {
		t.Errorf("first start does not say it generated the key:\n%s", s.stderr.String())
	}
	// Dial checks the fingerprint printed.
	if _, _, code := s.run(t, "findings --json"); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// TestServeWithSSHBinary drives the server with OpenSSH's client: the
// console in a forced terminal, and a refused shell command.
func TestServeWithSSHBinary(t *testing.T) {
	sshBin, err := exec.LookPath("ssh")
	if err != nil {
		t.Skip("the ssh client is not installed (apt-get install openssh-client to run this test)")
	}
	s := startServe(t)
	keyPath := filepath.Join(t.TempDir(), "id_ed25519")
	s.key.WritePrivate(t, keyPath)
	_, port, _ := strings.Cut(s.addr, ":")
	base := []string{"-F", "/dev/null", "-i", keyPath, "-p", port,
		"-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, sshBin, append(append([]string{"-tt"}, base...), "alice@127.0.0.1")...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var sshErr bytes.Buffer
	cmd.Stderr = &sshErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term := servetest.NewTerminal(t, stdin, stdout)
	if !term.Wait("TIMELINE", 30*time.Second) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no console; ssh said %q; screen:\n%s", sshErr.String(), term.Screen())
	}
	term.WaitFor("74 hits", 30*time.Second)
	term.Type("q")
	if err := cmd.Wait(); err != nil {
		t.Errorf("ssh after q: %v (%s)", err, sshErr.String())
	}

	out, err := exec.CommandContext(ctx, sshBin, append(base, "alice@127.0.0.1", "bash", "-i")...).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() == 0 || !strings.Contains(string(out), "not available over SSH") {
		t.Errorf("ssh HOST bash -i: %v %q", err, out)
	}
	// -W asks for a direct-tcpip channel: port forwarding, refused.
	out, err = exec.CommandContext(ctx, sshBin, append(base, "-W", s.addr, "alice@127.0.0.1")...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "forwarding failed") {
		t.Errorf("ssh -W (port forwarding): %v %q; want it refused", err, out)
	}
}

func tailString(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestServeFollowUsage: what serve refuses about evidence to follow and
// the session limits, before it opens anything.
func TestServeFollowUsage(t *testing.T) {
	input := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(input, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "incident")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--incident", dir, "--format", "cordon-ledger"}, "--format is for the evidence files to follow"},
		{[]string{"--incident", dir, "--format", "nope", input}, "unknown format"},
		{[]string{"--incident", dir, "-"}, "follows files, not stdin"},
		{[]string{"--incident", dir, filepath.Join(dir, "missing.log")}, "missing.log"},
		{[]string{"--incident", dir, "--idle-timeout", "-1m", input}, "cannot be negative"},
		{[]string{"--incident", dir, "--max-sessions", "-1", input}, "cannot be negative"},
	} {
		code, _, stderr := cordon(append([]string{"serve"}, c.args...)...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("a refused serve created %s: %v", dir, err)
	}
}
