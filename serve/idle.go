package serve

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
)

// live is a console the server runs: its program, and why the server
// ended it, if it did.
type live struct {
	p    *tea.Program
	stop context.CancelFunc // ends the idle watch

	mu     sync.Mutex
	ending string
}

func (c *live) end(why string) {
	c.mu.Lock()
	c.ending = why
	c.mu.Unlock()
	c.p.Quit()
}

func (c *live) why() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ending
}

// activity is a console's input that remembers when the client last sent
// anything: keys, mouse, and a terminal's answers to the console's queries.
type activity struct {
	r    io.Reader
	last atomic.Int64 // unix nanoseconds
}

func newActivity(r io.Reader) *activity {
	a := &activity{r: r}
	a.last.Store(time.Now().UnixNano())
	return a
}

func (a *activity) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 {
		a.last.Store(time.Now().UnixNano())
	}
	return n, err
}

func (a *activity) idle() time.Duration {
	return time.Since(time.Unix(0, a.last.Load()))
}

// watchIdle ends a console once its client has sent nothing for d. A
// responder who walked away keeps neither a session slot nor a screen of
// case data open on an unattended terminal.
func (s *Server) watchIdle(ctx context.Context, sess ssh.Session, c *live, in *activity, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if idle := in.idle(); idle < d {
			t.Reset(d - idle)
			continue
		}
		who, _ := ActorFrom(sess.Context())
		s.opt.Log.Info("console idle; closing", "user", who.Name, "key", who.Key, "idle_timeout", d)
		c.end(fmt.Sprintf("idle for %s, closing", shortDuration(d)))
		return
	}
}

// shortDuration writes d as people write it: 30m, 1h, 1h30m, 45s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
