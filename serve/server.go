package serve

import (
	"context"
	"errors"
	"github.com/cordon-ir/cordon/evidence"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	bm "github.com/charmbracelet/wish/bubbletea"
	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/config"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"
)

// HostKeyFile is the host key's name inside the workspace when no path is
// given: the key travels with the incident it serves.
const HostKeyFile = "ssh_host_ed25519_key"

// Options configure a server.
type Options struct {
	// Dir is the incident workspace, opened once and shared by every
	// session: read-only, unless there are Inputs to follow.
	Dir string
	// HostKey is the private host key file (default Dir/HostKeyFile),
	// created on first start.
	HostKey string
	// AuthorizedKeys lists the responders' public keys (OpenSSH format).
	AuthorizedKeys string
	// Observers lists keys that get a read-only console (optional).
	Observers string
	// Exec runs the commands a client may send instead of a shell; nil
	// refuses every command.
	Exec ExecFunc
	// Commands are the commands Exec may run (default DefaultCommands).
	Commands []Command
	// Log is the server's own log: refused keys, sessions, shutdown.
	Log *slog.Logger
	// Getenv reads the assistant's endpoint and key (os.Getenv in the
	// binary; nil: none, the assistant answers offline).
	Getenv func(string) string
	// ConsoleLog is the consoles' debug log (default: discarded).
	ConsoleLog *slog.Logger
	// Console is the console config every session starts from (the
	// server's config.yaml; nil: the defaults), and Version is cordon's
	// version for what the consoles write.
	Console *config.Config
	Version string
	// Grace is how long shutdown waits for sessions to end (default 5s).
	Grace time.Duration
	// Handshake bounds the time from connecting to opening a session
	// (default 30s): a client that stalls, or never gets in, does not
	// hold a connection for ever.
	Handshake time.Duration
	// Inputs, when set, are evidence files or folders to follow: the
	// server opens Dir for writing (creating it if needed), ingests them
	// in the background and keeps reading appended lines and rotated
	// files, and every console shows what arrives. Format is the format of
	// every input ("" sniffs each file).
	Inputs []string
	Format string
	// IdleTimeout ends a console that has had no input for that long,
	// telling its user why; 0 keeps idle consoles open.
	IdleTimeout time.Duration
	// MaxSessions bounds the sessions open at once, consoles, observers'
	// consoles and commands alike; the one past it is told the server is
	// full and closed. 0 sets no bound.
	MaxSessions int
	// Bounds bound every query a session's console runs: its time, its
	// hits and its bytes (zero: evidence.DefaultServeBounds).
	Bounds evidence.Bounds
	// Drill, when set, is served instead of Dir: its workspace (which the
	// caller opened, writable, and closes), its clock and its questions.
	// AuthorizedKeys are then the participants'; Facilitators lists the
	// keys that run the clock. Every action in a drill is a dry run.
	Drill        *drill.Drill
	Facilitators string
	// DrillDebrief is where a facilitator's E writes the debrief.
	DrillDebrief string
	// AllowShared serves a workspace other users can read, which New
	// refuses by default: the server writes there (its host key, the
	// consoles' steps and marks, the evidence it follows).
	AllowShared bool
	// Fleet, when set, serves the live console across a fleet instead of
	// one incident: Dir, Inputs and Drill are not used, HostKey must be
	// given, and no command is run.
	Fleet *Fleet
}

// Server serves one incident's console over SSH.
type Server struct {
	opt  Options
	name string
	ws   *incident.Workspace
	// getenv is where a console's assistant endpoint may come from.
	getenv  func(string) string
	keys    *keyring
	signer  gossh.Signer
	created bool
	ssh     *ssh.Server
	// ingest follows Options.Inputs; nil when serving a finished index.
	ingest     *incident.IngestRun
	stopIngest context.CancelFunc

	mu       sync.Mutex
	closing  bool
	sessions int // open now, counted against MaxSessions
	consoles map[ssh.Session]*live
	handlers sync.WaitGroup
}

// New opens the workspace, loads (or creates) the host key and reads the
// key files. Close it, or Serve, which closes it on return.
func New(opt Options) (*Server, error) {
	if opt.Log == nil {
		opt.Log = slog.New(slog.DiscardHandler)
	}
	if opt.ConsoleLog == nil {
		opt.ConsoleLog = slog.New(slog.DiscardHandler)
	}
	if opt.Grace <= 0 {
		opt.Grace = 5 * time.Second
	}
	if opt.Handshake <= 0 {
		opt.Handshake = 30 * time.Second
	}
	if opt.Commands == nil {
		opt.Commands = DefaultCommands()
	}
	if opt.Drill != nil {
		opt.Dir = opt.Drill.WS.Dir
		if len(opt.Inputs) > 0 {
			return nil, errors.New("a drill releases its own evidence: no inputs to follow")
		}
	} else if opt.Facilitators != "" {
		return nil, errors.New("facilitator keys are for a drill")
	}
	if opt.IdleTimeout < 0 || opt.MaxSessions < 0 {
		return nil, errors.New("negative idle timeout or session bound")
	}
	if opt.HostKey == "" {
		opt.HostKey = filepath.Join(opt.Dir, HostKeyFile)
	}
	if opt.AuthorizedKeys == "" {
		return nil, errors.New("no authorized keys file")
	}
	keys, err := newKeyring(opt.AuthorizedKeys, opt.Observers, opt.Facilitators, opt.Log)
	if err != nil {
		return nil, err
	}
	if opt.Fleet != nil {
		return newFleet(opt, keys)
	}
	// The workspace first: a mistyped DIR makes no host key there.
	ws, err := openWorkspace(opt)
	if err != nil {
		return nil, err
	}
	signer, created, err := loadHostKey(opt.HostKey)
	if err != nil {
		if opt.Drill == nil {
			ws.Close()
		}
		return nil, err
	}
	// the consoles share one run of the detectors: none cancels it
	ws.ShareRuns()
	s := &Server{
		opt: opt, name: filepath.Base(ws.Dir), ws: ws, keys: keys, signer: signer, created: created,
		consoles: map[ssh.Session]*live{},
	}
	s.signJournal()
	s.getenv = opt.Getenv
	// A cordon.yaml or rules file that cannot be read fails here, not in
	// every session's console.
	if _, err := ws.Handle(incident.HandleOptions{Getenv: s.getenv}); err != nil {
		s.closeWorkspace()
		return nil, err
	}
	if s.ssh, err = s.newSSH(); err != nil {
		s.closeWorkspace()
		return nil, err
	}
	if len(opt.Inputs) > 0 {
		ctx, cancel := context.WithCancel(context.Background())
		s.stopIngest = cancel
		s.ingest = ws.StartIngest(ctx, opt.Inputs, incident.IngestOptions{Format: opt.Format, Actor: serverActor}, true)
		go s.logIngest(ctx)
	}
	return s, nil
}

// JournalSignEvery is how many journal entries the server lets pass
// between signed checkpoints; it signs one more as it stops.
const JournalSignEvery = 50

// serverActor is who signs the server's checkpoints.
var serverActor = journal.Actor{Name: "cordon serve", Via: journal.ViaSSH}

// signJournal makes the journal sign its checkpoints with the host key,
// but only one kept outside the workspace: whoever can rewrite the journal
// must not be able to read the key that attests it.
func (s *Server) signJournal() {
	js, err := journal.LoadSigner(s.opt.HostKey, s.ws.Dir)
	if err != nil {
		s.opt.Log.Warn("journal checkpoints are not signed", "reason", err)
		return
	}
	s.ws.SignJournal(js, JournalSignEvery)
	s.opt.Log.Info("journal checkpoints signed with the host key", "every", JournalSignEvery, "key", js.Fingerprint())
}

// openWorkspace opens the served incident read-only, or for writing when
// there is evidence to follow, or takes the drill's.
func openWorkspace(opt Options) (*incident.Workspace, error) {
	switch {
	case opt.Drill != nil:
		return opt.Drill.WS, nil
	case !opt.AllowShared:
		// Read-only media are served as they are: only the writes fail.
		if err := journal.CheckWritable(opt.Dir, false); errors.Is(err, journal.ErrShared) {
			return nil, err
		}
	}
	if len(opt.Inputs) > 0 {
		return incident.Create(opt.Dir, incident.AllowShared(opt.AllowShared))
	}
	return incident.Open(opt.Dir, incident.AllowShared(opt.AllowShared))
}

// closeWorkspace stops the ingest and closes what New opened: a drill's
// workspace is its caller's to close.
func (s *Server) closeWorkspace() error {
	if s.ws == nil { // a fleet's server holds none
		return nil
	}
	if s.ingest != nil {
		s.stopIngest()
		u := s.ingest.Wait()
		s.opt.Log.Info("ingest stopped", "new_events", u.Added, "files", len(u.Results))
	}
	if err := s.ws.SealJournal(context.Background(), serverActor); err != nil {
		s.opt.Log.Warn("journal not sealed", "err", err)
	}
	if s.opt.Drill != nil {
		return nil
	}
	return s.ws.Close()
}

// logIngest writes to the server's log when the ingest starts following
// its inputs, when a file fails, and when it ends on its own.
func (s *Server) logIngest(ctx context.Context) {
	w := s.ingest.Watch()
	following := false
	failed := map[string]bool{}
	for {
		u, ok := w.Next(ctx)
		for _, f := range u.Results {
			if f.Err != nil && !failed[f.Path] {
				failed[f.Path] = true
				s.opt.Log.Warn("ingest: file skipped", "path", f.Path, "err", f.Err)
			}
		}
		if u.Following && !following {
			following = true
			s.opt.Log.Info("ingest following", "files", len(u.Results), "new_events", u.Added)
		}
		if !ok {
			if u.Done && u.Err != nil && ctx.Err() == nil {
				s.opt.Log.Error("ingest ended; the consoles show what was indexed", "err", u.Err)
			}
			return
		}
	}
}

// Ingest is the run following Options.Inputs, or nil.
func (s *Server) Ingest() *incident.IngestRun { return s.ingest }

// Fingerprint is the host key's SHA256 fingerprint, as ssh shows it on
// first connection.
func (s *Server) Fingerprint() string { return gossh.FingerprintSHA256(s.signer.PublicKey()) }

// HostKeyCreated reports whether New generated the host key.
func (s *Server) HostKeyCreated() bool { return s.created }

// HostKeyPath is the host key file in use.
func (s *Server) HostKeyPath() string { return s.opt.HostKey }

func (s *Server) newSSH() (*ssh.Server, error) {
	srv, err := wish.NewServer(
		// First, so that wish never makes a key of its own in the
		// working directory.
		func(srv *ssh.Server) error { srv.AddHostKey(s.signer); return nil },
		wish.WithPublicKeyAuth(s.authorize),
		wish.WithMiddleware(
			func(ssh.Handler) ssh.Handler { return s.forget },
			// Ascii as the floor: a client's terminal is never sent more
			// colours than it says it has.
			bm.MiddlewareWithProgramHandler(s.program, termenv.Ascii),
			s.gate,
		),
	)
	if err != nil {
		return nil, err
	}
	// Nothing but sessions: no port forwarding either way, no subsystems
	// (sftp), no global requests. Agent and X11 requests are refused by
	// sessionChannel.
	srv.ChannelHandlers = map[string]ssh.ChannelHandler{"session": s.sessionChannel, "default": s.refuseChannel}
	srv.RequestHandlers = map[string]ssh.RequestHandler{"default": s.refuseRequest}
	srv.SubsystemHandlers = map[string]ssh.SubsystemHandler{}
	srv.LocalPortForwardingCallback = nil
	srv.ReversePortForwardingCallback = nil
	srv.PasswordHandler = nil
	srv.KeyboardInteractiveHandler = nil
	srv.ServerConfigCallback = func(ssh.Context) *gossh.ServerConfig {
		return &gossh.ServerConfig{MaxAuthTries: 6}
	}
	srv.ConnCallback = func(ctx ssh.Context, c net.Conn) net.Conn {
		hc := newHandshakeConn(c, s.opt.Handshake)
		ctx.SetValue(handshakeKey{}, hc)
		return hc
	}
	srv.ConnectionFailedCallback = func(c net.Conn, err error) {
		s.opt.Log.Info("connection failed", "remote", c.RemoteAddr().String(), "err", err)
	}
	return srv, nil
}

// authorize is the only way in: a public key listed in a key file. An
// unknown key is logged (who tried, from where, which key) and refused.
func (s *Server) authorize(ctx ssh.Context, key ssh.PublicKey) bool {
	role, _ := s.keys.role(key)
	if role == RoleNone {
		s.opt.Log.Warn("refused unknown key", "user", ctx.User(), "remote", ctx.RemoteAddr().String(),
			"key", gossh.FingerprintSHA256(key), "type", key.Type())
		return false
	}
	return true
}

// refuseChannel turns down every channel but a session: direct-tcpip
// (ssh -L, ssh -W), forwarded streams, anything else.
func (s *Server) refuseChannel(_ *ssh.Server, _ *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
	s.opt.Log.Info("refused channel", "type", nc.ChannelType(), "user", ctx.User(), "remote", ctx.RemoteAddr().String())
	_ = nc.Reject(gossh.Prohibited, "this server serves only the incident console: no forwarding")
}

// refuseRequest turns down every global request: reverse forwarding
// (ssh -R) above all; keepalives are answered "no", which clients accept.
func (s *Server) refuseRequest(ctx ssh.Context, _ *ssh.Server, req *gossh.Request) (bool, []byte) {
	if strings.Contains(req.Type, "forward") {
		s.opt.Log.Info("refused request", "request", req.Type, "user", ctx.User(), "remote", ctx.RemoteAddr().String())
	}
	return false, nil
}

// Serve accepts connections on ln until ctx ends, then shuts down: it stops
// accepting, asks every console to quit, gives sessions Grace to end, closes
// what is left and then the workspace.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	served := make(chan error, 1)
	go func() { served <- s.ssh.Serve(ln) }()
	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
	}
	s.shutdown()
	if errors.Is(err, ssh.ErrServerClosed) {
		err = nil
	}
	if cerr := s.closeWorkspace(); err == nil {
		err = cerr
	}
	return err
}

// Close closes a server that was never served.
func (s *Server) Close() error {
	s.ssh.Close()
	return s.closeWorkspace()
}

func (s *Server) shutdown() {
	s.mu.Lock()
	s.closing = true
	programs := make([]*tea.Program, 0, len(s.consoles))
	for _, c := range s.consoles {
		programs = append(programs, c.p)
	}
	s.mu.Unlock()
	s.opt.Log.Info("shutting down", "consoles", len(programs))
	for _, p := range programs {
		p.Quit()
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opt.Grace)
	defer cancel()
	if err := s.ssh.Shutdown(ctx); err != nil {
		s.opt.Log.Warn("sessions still open after the grace period; closing them", "grace", s.opt.Grace)
		s.ssh.Close()
	}
	// Handlers finish quickly once their connections are gone; the
	// workspace is closed only after them.
	done := make(chan struct{})
	go func() { s.handlers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(s.opt.Grace):
		s.opt.Log.Warn("session handlers still running at close")
	}
}

// admit counts a session in, or reports that MaxSessions are open.
func (s *Server) admit() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opt.MaxSessions > 0 && s.sessions >= s.opt.MaxSessions {
		return false
	}
	s.sessions++
	return true
}

// leave counts a session out.
func (s *Server) leave() {
	s.mu.Lock()
	s.sessions--
	s.mu.Unlock()
}

// begin registers a session handler; false once shutting down.
func (s *Server) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.handlers.Add(1)
	return true
}
