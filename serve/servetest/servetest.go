// Package servetest is an SSH client for tests of the console server: key
// pairs, authorized_keys files, connections, and a terminal that answers the
// queries a real terminal answers and waits on what the screen shows.
package servetest

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"
)

// Key is a client key pair.
type Key struct {
	Signer  gossh.Signer
	Comment string
	priv    ed25519.PrivateKey
}

// NewKey makes an ed25519 key pair with a comment.
func NewKey(t testing.TB, comment string) Key {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return Key{Signer: s, Comment: comment, priv: priv}
}

// Fingerprint is the key's SHA256 fingerprint.
func (k Key) Fingerprint() string { return gossh.FingerprintSHA256(k.Signer.PublicKey()) }

// AuthorizedLine is the key as a line of authorized_keys.
func (k Key) AuthorizedLine() string {
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k.Signer.PublicKey())))
	if k.Comment != "" {
		line += " " + k.Comment
	}
	return line
}

// WritePrivate writes the private key in OpenSSH format (mode 0600), for
// the ssh binary.
func (k Key) WritePrivate(t testing.TB, path string) {
	t.Helper()
	block, err := gossh.MarshalPrivateKey(k.priv, k.Comment)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
}

// WriteKeys writes keys as an authorized_keys file at path.
func WriteKeys(t testing.TB, path string, keys ...Key) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# responders\n")
	for _, k := range keys {
		b.WriteString(k.AuthorizedLine() + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Dial connects to addr as user with key, checking the host key's
// fingerprint when hostFP is not empty.
func Dial(addr, user string, hostFP string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", addr, &gossh.ClientConfig{
		User: user,
		Auth: auth,
		HostKeyCallback: func(_ string, _ net.Addr, key gossh.PublicKey) error {
			if hostFP != "" && gossh.FingerprintSHA256(key) != hostFP {
				return fmt.Errorf("host key %s, want %s", gossh.FingerprintSHA256(key), hostFP)
			}
			return nil
		},
		Timeout: 10 * time.Second,
	})
}

// Terminal is the client side of an interactive session: everything the
// server wrote, and the keys to send.
type Terminal struct {
	t    testing.TB
	Sess *gossh.Session
	in   io.WriteCloser

	mu  sync.Mutex
	out bytes.Buffer
	eof bool
	// silent: answer no terminal query, as some clients (and terminals
	// behind them) never do.
	silent bool
}

// Open starts a shell session with a PTY of w×h on client, sending env
// ("NAME=value") first.
func Open(t testing.TB, client *gossh.Client, w, h int, env ...string) *Terminal {
	t.Helper()
	return open(t, client, w, h, false, env)
}

// OpenSilent is Open with a terminal that never answers a query (the
// background colour, the device attributes).
func OpenSilent(t testing.TB, client *gossh.Client, w, h int, env ...string) *Terminal {
	t.Helper()
	return open(t, client, w, h, true, env)
}

func open(t testing.TB, client *gossh.Client, w, h int, silent bool, env []string) *Terminal {
	t.Helper()
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if err := sess.Setenv(name, value); err != nil {
			t.Fatal(err)
		}
	}
	term, err := attach(t, sess, silent)
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{gossh.ECHO: 0}); err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	return term
}

// Attach wires a terminal to a session before it starts.
func Attach(t testing.TB, sess *gossh.Session) (*Terminal, error) {
	return attach(t, sess, false)
}

func attach(t testing.TB, sess *gossh.Session, silent bool) (*Terminal, error) {
	in, err := sess.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errOut, err := sess.StderrPipe()
	if err != nil {
		return nil, err
	}
	term := &Terminal{t: t, Sess: sess, in: in, silent: silent}
	go term.read(out)
	// What the server says on stderr shows on the terminal too, as ssh
	// shows it.
	go term.readStderr(errOut)
	return term, nil
}

func (term *Terminal) readStderr(r io.Reader) {
	buf := make([]byte, 4096)
	for {
		n, err := r.Read(buf)
		term.mu.Lock()
		term.out.Write(buf[:n])
		term.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// NewTerminal follows a process's terminal output on out and types on in:
// for the ssh binary.
func NewTerminal(t testing.TB, in io.WriteCloser, out io.Reader) *Terminal {
	term := &Terminal{t: t, in: in}
	go term.read(out)
	return term
}

// read keeps the output and answers the terminal queries a console sends
// at start (background colour, device attributes), as a real terminal does.
func (term *Terminal) read(r io.Reader) {
	buf := make([]byte, 32*1024)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if !term.silent && bytes.Contains(chunk, []byte("\x1b]11;?")) {
				_, _ = io.WriteString(term.in, "\x1b]11;rgb:0000/0000/0000\x1b\\")
			}
			if !term.silent && bytes.Contains(chunk, []byte("\x1b[c")) {
				_, _ = io.WriteString(term.in, "\x1b[?62;22c")
			}
			term.mu.Lock()
			term.out.Write(chunk)
			term.mu.Unlock()
		}
		if err != nil {
			term.mu.Lock()
			term.eof = true
			term.mu.Unlock()
			return
		}
	}
}

// Type sends keys.
func (term *Terminal) Type(keys string) {
	term.t.Helper()
	if _, err := io.WriteString(term.in, keys); err != nil {
		term.t.Fatalf("type %q: %v", keys, err)
	}
}

// Screen is everything shown so far, without escape sequences.
func (term *Terminal) Screen() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return ansi.Strip(term.out.String())
}

// Raw is everything the server wrote so far.
func (term *Terminal) Raw() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.out.String()
}

// WaitFor waits until the screen shows text, failing the test after d.
func (term *Terminal) WaitFor(text string, d time.Duration) {
	term.t.Helper()
	if !term.Wait(text, d) {
		term.t.Fatalf("%q not shown within %s; screen:\n%s", text, d, tail(term.Screen(), 3000))
	}
}

// Wait reports whether the screen shows text within d.
func (term *Terminal) Wait(text string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if strings.Contains(term.Screen(), text) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitEOF waits until the server closed the output.
func (term *Terminal) WaitEOF(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		term.mu.Lock()
		eof := term.eof
		term.mu.Unlock()
		if eof {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
