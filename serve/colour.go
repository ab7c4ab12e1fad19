package serve

import (
	"context"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/muesli/termenv"
)

// colourQueryTimeout bounds how long a console waits for the client's
// terminal to say its background colour. Some never answer (a serial
// console, a client that filters the query, a script); past it the
// console assumes a dark background.
const colourQueryTimeout = 2 * time.Second

// The terminal's answers to the queries: the background colour (OSC 11,
// ended by BEL or ST), and the primary device attributes (DA1), which
// every terminal answers and so marks the end of the replies.
var (
	bgReply  = regexp.MustCompile(`\x1b\]11;rgb:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})(?:\x07|\x1b\\)`)
	da1Reply = regexp.MustCompile(`\x1b\[\?[0-9;]*c`)
)

// sessionRenderer styles one session's console for its client's terminal,
// as wish's MakeRenderer does (TERM from the pty, the session's
// environment), except that the background colour is asked through in and
// its wait is bounded: wish's own query reads the session with a timeout
// it cannot enforce on a network stream, so a client that never answers
// never got a console, and the first key it sent was taken as the answer.
func sessionRenderer(sess ssh.Session, in *sessionInput) *lipgloss.Renderer {
	pty, _, ok := sess.Pty()
	if !ok || pty.Term == "" || pty.Term == "dumb" {
		return lipgloss.NewRenderer(sess, termenv.WithProfile(termenv.Ascii))
	}
	env := sshEnviron(append(sess.Environ(), "TERM="+pty.Term))
	r := lipgloss.NewRenderer(sess, termenv.WithEnvironment(env), termenv.WithUnsafe(), termenv.WithColorCache(true))
	dark, _ := in.askBackground(sess, colourQueryTimeout)
	r.SetHasDarkBackground(dark)
	return r
}

// sessionInput is a session's input as its console reads it. One
// goroutine reads the session, so that a query can wait for the
// terminal's answer with a deadline and hand on what else arrived (keys
// typed meanwhile); replies that come after the deadline are dropped
// rather than read as keys.
type sessionInput struct {
	ch      chan []byte
	err     error // why the session's input ended; read after ch is closed
	pending []byte
	closed  bool
}

// newSessionInput reads r until it fails or ctx (the session's) ends.
func newSessionInput(ctx context.Context, r io.Reader) *sessionInput {
	in := &sessionInput{ch: make(chan []byte, 16)}
	go func() {
		for {
			buf := make([]byte, 4096)
			n, err := r.Read(buf)
			if n > 0 {
				select {
				case in.ch <- buf[:n]:
				case <-ctx.Done(): // the console is gone: nobody reads
					return
				}
			}
			if err != nil {
				in.err = err
				close(in.ch)
				return
			}
		}
	}()
	return in
}

// Read hands on the session's input, less any late answer to a query.
func (in *sessionInput) Read(p []byte) (int, error) {
	for len(in.pending) == 0 {
		if in.closed {
			return 0, in.err
		}
		b, ok := <-in.ch
		if !ok {
			in.closed = true
			continue
		}
		in.pending = dropReplies(b)
	}
	n := copy(p, in.pending)
	in.pending = in.pending[n:]
	return n, nil
}

// askBackground asks the terminal on w for its background colour and
// waits at most d for the answer. It reports whether the background is
// dark (true when unknown) and whether the terminal answered.
func (in *sessionInput) askBackground(w io.Writer, d time.Duration) (dark, answered bool) {
	if _, err := io.WriteString(w, "\x1b]11;?\x07\x1b[c"); err != nil {
		return true, false
	}
	dark = true
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	var got []byte
	for {
		select {
		case b, ok := <-in.ch:
			if !ok {
				in.closed = true
				in.pending = dropReplies(got)
				return dark, answered
			}
			got = append(got, b...)
			if m := bgReply.FindSubmatch(got); m != nil {
				dark, answered = isDark(m[1], m[2], m[3]), true
			}
			if da1Reply.Match(got) {
				in.pending = dropReplies(got)
				return dark, answered
			}
		case <-deadline.C:
			in.pending = dropReplies(got)
			return dark, answered
		}
	}
}

// dropReplies removes the terminal's answers to the queries from input.
func dropReplies(b []byte) []byte {
	if !strings.Contains(string(b), "\x1b") {
		return b
	}
	return da1Reply.ReplaceAll(bgReply.ReplaceAll(b, nil), nil)
}

// isDark reads an X11 rgb reply (1 to 4 hex digits per channel) and says
// whether its lightness (HSL) is below one half, as lipgloss judges it.
func isDark(r, g, b []byte) bool {
	ch := func(h []byte) float64 {
		v, _ := strconv.ParseUint(string(h), 16, 16)
		return float64(v) / float64(uint64(1)<<(4*len(h))-1)
	}
	x, y, z := ch(r), ch(g), ch(b)
	return (max(x, y, z)+min(x, y, z))/2 < 0.5
}

// sshEnviron is a session's environment as termenv reads it.
type sshEnviron []string

// Environ returns the variables as NAME=value.
func (e sshEnviron) Environ() []string { return e }

// Getenv returns the value of k: the first one set, as wish reads it.
func (e sshEnviron) Getenv(k string) string {
	for _, kv := range e {
		if strings.HasPrefix(kv, k+"=") {
			return kv[len(k)+1:]
		}
	}
	return ""
}
