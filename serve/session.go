package serve

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"
)

// actorKey holds a session's journal.Actor in its context.
type actorKey struct{}

// ActorFrom returns the actor the server set for a session's context: the
// SSH user, the fingerprint and comment of the key it proved, and whether
// it is an observer.
func ActorFrom(ctx interface{ Value(any) any }) (journal.Actor, bool) {
	a, ok := ctx.Value(actorKey{}).(journal.Actor)
	return a, ok
}

// identify names the person behind a session from the key the connection
// authenticated with, looked up again now: a key revoked since the
// handshake gets no session.
func (s *Server) identify(sess ssh.Session) (journal.Actor, bool) {
	key := sess.PublicKey()
	if key == nil {
		return journal.Actor{}, false
	}
	role, comment := s.keys.role(key)
	if role == RoleNone {
		return journal.Actor{}, false
	}
	name := evidence.Printable(sess.User())
	if r := []rune(name); len(r) > 64 {
		name = string(r[:64])
	}
	return journal.Actor{
		Name: name, Via: journal.ViaSSH, Key: gossh.FingerprintSHA256(key),
		Comment: evidence.Printable(comment), Observer: role == RoleObserver,
	}, true
}

// gate runs first for every session: it names the actor, runs an allowed
// command, refuses a session without a terminal, and hands the rest to the
// console.
func (s *Server) gate(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		if !s.begin() {
			fmt.Fprint(sess.Stderr(), "cordon: the server is shutting down\r\n")
			sess.Exit(1)
			return
		}
		defer s.handlers.Done()
		defer func() {
			// One session's failure must not take the others down.
			if r := recover(); r != nil {
				s.opt.Log.Error("session panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				fmt.Fprint(sess.Stderr(), "\r\ncordon: internal error; the session ends (details in the server log)\r\n")
				sess.Exit(1)
			}
		}()
		who, ok := s.identify(sess)
		if !ok {
			fmt.Fprint(sess.Stderr(), "cordon: this key is no longer authorized\r\n")
			sess.Exit(1)
			return
		}
		sess.Context().SetValue(actorKey{}, who)
		role := roleOf(who)
		if s.facilitator(sess) {
			role = RoleFacilitator.String()
		}
		log := s.opt.Log.With("user", who.Name, "key", who.Key, "role", role, "remote", sess.RemoteAddr().String())
		if !s.admit() {
			log.Warn("refused session: the server is full", "max_sessions", s.opt.MaxSessions)
			fmt.Fprintf(sess.Stderr(), "cordon: the server is full (%d sessions); try again later\r\n", s.opt.MaxSessions)
			sess.Exit(1)
			return
		}
		defer s.leave()
		opened(sess.Context())
		_, _, hasPty := sess.Pty()
		if strings.TrimSpace(sess.RawCommand()) != "" {
			log.Info("command", "command", sess.RawCommand())
			sess.Exit(s.runCommand(sess))
			return
		}
		if !hasPty {
			log.Info("refused session without a terminal")
			fmt.Fprint(sess.Stderr(), noTerminal(s.opt.Commands))
			sess.Exit(1)
			return
		}
		log.Info("console opened")
		next(sess)
		log.Info("console closed")
	}
}

func noTerminal(commands []Command) string {
	return "cordon: this server only serves the incident console, which needs a terminal.\n" +
		"Connect with a terminal (ssh -t HOST), or run one of the read-only commands\n" +
		"(ssh HOST COMMAND):\n" + usageList(commands) +
		"There is no shell here, and no port, agent or X11 forwarding.\n"
}

// facilitator reports whether a session's key runs the drill's clock.
func (s *Server) facilitator(sess ssh.Session) bool {
	if s.opt.Drill == nil || sess.PublicKey() == nil {
		return false
	}
	role, _ := s.keys.role(sess.PublicKey())
	return role == RoleFacilitator
}

func roleOf(a journal.Actor) string {
	if a.Observer {
		return RoleObserver.String()
	}
	return RoleResponder.String()
}

// runCommand runs a command line from the list, or refuses it; it returns
// the exit status.
func (s *Server) runCommand(sess ssh.Session) int {
	// With a terminal, the session itself ends lines as a terminal expects.
	var stdout, stderr io.Writer = sess, sess.Stderr()
	args, err := checkCommand(s.opt.Commands, sess.Command())
	if err != nil {
		fmt.Fprintf(stderr, "cordon: %v\n", err)
		return 126
	}
	if s.opt.Exec == nil {
		fmt.Fprintf(stderr, "cordon: %s is not available on this server\n", args[0])
		return 126
	}
	return s.opt.Exec(sess.Context(), s.ws, args, stdout, stderr)
}

// program builds the console of one session: its own model, styled for the
// client's terminal by a renderer made from the session.
func (s *Server) program(sess ssh.Session) *tea.Program {
	who, ok := ActorFrom(sess.Context())
	if !ok {
		return nil
	}
	input := newSessionInput(sess.Context(), sess)
	r := sessionRenderer(sess, input)
	if noColor(sess.Environ()) {
		r.SetColorProfile(termenv.Ascii)
	}
	var m tea.Model
	if s.opt.Fleet != nil {
		m = s.fleetConsole(sess, who, r)
	} else if m = s.incidentConsole(sess, who, r); m == nil {
		return nil
	}
	in := newActivity(input)
	opts := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion()}, bm.MakeOptions(sess)...)
	// The server allocates no pty of its own (no ssh.AllocatePty), so the
	// console reads the session itself: through in, which notes each key.
	opts = append(opts, tea.WithInput(in))
	p := tea.NewProgram(m, opts...)
	ctx, stop := context.WithCancel(sess.Context())
	c := &live{p: p, stop: stop}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		stop()
		return nil
	}
	s.consoles[sess] = c
	if d := s.opt.IdleTimeout; d > 0 {
		go s.watchIdle(ctx, sess, c, in, d)
	}
	return p
}

// incidentConsole is the console of the server's incident for one
// session (nil: it could not be opened, and the user was told).
func (s *Server) incidentConsole(sess ssh.Session, who journal.Actor, r *lipgloss.Renderer) tea.Model {
	// Every session's handle is on the one workspace: the consoles share
	// its run of the detectors.
	bounds := s.opt.Bounds
	if bounds == (evidence.Bounds{}) {
		bounds = evidence.DefaultServeBounds
	}
	h, err := s.ws.Handle(incident.HandleOptions{Name: s.name, Actor: who, ReadOnly: who.Observer, Ingest: s.ingest, Getenv: s.getenv, Bounds: &bounds})
	if err != nil {
		s.opt.Log.Error("console not opened", "user", who.Name, "err", err)
		fmt.Fprintf(sess.Stderr(), "cordon: %v\r\n", err)
		return nil
	}
	m := tui.New(h, tui.Options{
		Renderer: r, Dark: r.HasDarkBackground(),
		Logger: s.opt.ConsoleLog.With("user", who.Name, "key", who.Key),
		Ctx:    sess.Context(),
		Drill:  s.opt.Drill, DrillFacilitator: s.facilitator(sess), DrillDebrief: s.opt.DrillDebrief,
		// a session writes its reports and exports only into exports/
		Remote: true, Config: s.opt.Console, Version: s.opt.Version,
	})
	return console{m}
}

// The largest terminal a session is drawn for.
const (
	maxWidth  = 1000
	maxHeight = 500
)

// console is the console as a session runs it: a client that reports no
// terminal size (ssh -tt from a script asks for 0×0) gets a classic 80×24
// rather than a blank screen, and every key carries its own runes.
type console struct{ tui.Model }

func (c console) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch m := msg.(type) {
	case tea.WindowSizeMsg:
		if m.Width <= 0 || m.Height <= 0 {
			msg = tea.WindowSizeMsg{Width: 80, Height: 24}
		}
		// The client chooses the size: a window of 2³² cells would be
		// drawn in full and exhaust the server, for everyone.
		if m.Width > maxWidth || m.Height > maxHeight {
			msg = tea.WindowSizeMsg{Width: min(max(m.Width, 1), maxWidth), Height: min(max(m.Height, 1), maxHeight)}
		}
	case tea.KeyMsg:
		// Bubble Tea hands out one package-level rune slice for the space
		// key, and text inputs sanitize runes in place: two consoles in
		// one process typing a space would write the same memory.
		m.Runes = slices.Clone(m.Runes)
		msg = m
	}
	m, cmd := c.Model.Update(msg)
	if tm, ok := m.(tui.Model); ok {
		return console{tm}, cmd
	}
	return m, cmd
}

// forget ends the chain after a console: it is no longer one to quit at
// shutdown, and if the server ended it, its user is told why.
func (s *Server) forget(sess ssh.Session) {
	s.mu.Lock()
	c, had := s.consoles[sess]
	delete(s.consoles, sess)
	closing := s.closing
	s.mu.Unlock()
	if !had {
		return
	}
	c.stop()
	switch why := c.why(); {
	case why != "":
		fmt.Fprintf(sess, "\r\ncordon: %s\r\n", why)
	case closing:
		fmt.Fprint(sess, "\r\ncordon: the server is shutting down\r\n")
	}
}

// noColor honours NO_COLOR sent by the client (any non-empty value).
func noColor(env []string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, "NO_COLOR=") && len(kv) > len("NO_COLOR=") {
			return true
		}
	}
	return false
}

// sessionChannel is the default session handler behind a filter that
// refuses agent and X11 forwarding and subsystems (sftp) before they reach
// it.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	// The handshake deadline stays until the session is admitted (gate):
	// a channel that never asks for a shell or a command must not hold a
	// connection outside the session limit.
	ssh.DefaultSessionHandler(srv, conn, filteredChannel{NewChannel: nc, s: s, ctx: ctx}, ctx)
}

type filteredChannel struct {
	gossh.NewChannel
	s   *Server
	ctx ssh.Context
}

// refused names a session request that could reach beyond the console,
// or returns "".
func refused(request string) string {
	switch request {
	case "auth-agent-req@openssh.com":
		return "agent forwarding"
	case "x11-req":
		return "X11 forwarding"
	case "subsystem":
		return "subsystem"
	}
	return ""
}

func (c filteredChannel) Accept() (gossh.Channel, <-chan *gossh.Request, error) {
	ch, reqs, err := c.NewChannel.Accept()
	if err != nil {
		return ch, reqs, err
	}
	out := make(chan *gossh.Request)
	go func() {
		defer close(out)
		for r := range reqs {
			if what := refused(r.Type); what != "" {
				c.s.opt.Log.Info("refused request", "request", what, "user", c.ctx.User(), "remote", c.ctx.RemoteAddr().String())
				if r.WantReply {
					_ = r.Reply(false, nil)
				}
				continue
			}
			out <- r
		}
	}()
	return ch, out, nil
}
