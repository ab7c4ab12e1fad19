package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/serve"
	"github.com/cordon-ir/cordon/tui/fleetview"
	"github.com/cordon-ir/cordon/watch"
	"github.com/spf13/cobra"
)

const serveArgs = "--incident DIR [--format F] [FILE|DIR ...] | --drill SCENARIO [--out DIR] [--facilitators PATH] | --nats URL [--findings-stream S] [--stream S] [--pull-into DIR] [--listen 127.0.0.1:2222] [--host-key PATH] [--authorized-keys PATH] [--observers PATH] [--idle-timeout 30m] [--max-sessions 32] [--query-timeout 10s] [--max-hits 10000] [--debug LOG]"

// cmdServe serves the console of one incident over SSH until SIGTERM or
// SIGINT, then shuts down gracefully.
func cmdServe(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR` to serve")
	listen := fs.String("listen", "127.0.0.1:2222", "`ADDR` to listen on (loopback unless you say otherwise)")
	hostKey := fs.String("host-key", "", "host key `PATH` (default DIR/"+serve.HostKeyFile+", created on first start, mode 0600)")
	authorized := fs.String("authorized-keys", "", "responders' public keys, OpenSSH format (default ~/.ssh/authorized_keys); re-read when it changes")
	observers := fs.String("observers", "", "observers' public keys (same format): they get a read-only console")
	debug := fs.String("debug", "", "write the consoles' debug log to `FILE`")
	scenario := fs.String("drill", "", "serve a tabletop drill of `SCENARIO` instead of an incident: --authorized-keys are the participants")
	facilitators := fs.String("facilitators", "", "with --drill: the keys of those who run the drill's clock (same format)")
	out := fs.String("out", "", "with --drill: the drill's new folder `DIR` (workspace and debrief; default under $XDG_STATE_HOME/cordon/drills)")
	format := fs.String("format", "", "with evidence to follow: read every input as `FORMAT` instead of sniffing (see cordon formats)")
	idle := fs.Duration("idle-timeout", 30*time.Minute, "close a console after `D` without input (0: never)")
	maxSessions := fs.Int("max-sessions", 32, "at most `N` sessions at once, observers' included (0: no limit)")
	queryTimeout := fs.Duration("query-timeout", evidence.DefaultServeBounds.Timeout, "end each query of a session's console after `D`")
	maxHits := fs.Int("max-hits", evidence.DefaultServeBounds.MaxHits, "at most `N` events in one answer to a session's console")
	natsURL := fs.String("nats", "", "serve the live console across the fleet from the findings on this NATS `URL` instead of an incident (see docs/fleet.md)")
	findingsStream := fs.String("findings-stream", watch.DefaultFindingsStream, "with --nats: the findings' stream")
	eventsStream := fs.String("stream", fleet.DefaultStream, "with --nats: the events' stream an incident is pulled from")
	pullInto := fs.String("pull-into", "", "with --nats: make the pulled incidents' workspaces under `DIR` (default $XDG_STATE_HOME/cordon/incidents)")
	shared := allowSharedFlag(fs)
	c.RunE = func(cmd *cobra.Command, inputs []string) error {
		ctx := cmd.Context()
		if *natsURL != "" {
			if *dir != "" || *scenario != "" || len(inputs) > 0 || *format != "" {
				return fmt.Errorf("%w: serve --nats serves the fleet's console: no --incident, --drill or evidence to follow", errUsage)
			}
			fo := fleetOpen{url: *natsURL, findings: *findingsStream, events: *eventsStream, into: *pullInto, shared: shared()}
			if fo.into == "" {
				fo.into = filepath.Join(stateHome(), "cordon", "incidents")
			}
			if *hostKey == "" {
				*hostKey = filepath.Join(stateHome(), "cordon", "fleet", serve.HostKeyFile)
			}
			if *authorized == "" {
				home, err := os.UserHomeDir()
				if err != nil {
					return fmt.Errorf("%w: no home directory for ~/.ssh/authorized_keys; pass --authorized-keys PATH", errUsage)
				}
				*authorized = filepath.Join(home, ".ssh", "authorized_keys")
			}
			clog, closeLog, err := debugLog(*debug)
			if err != nil {
				return err
			}
			defer closeLog()
			return serveFleet(ctx, e, fo, *listen, serve.Options{
				HostKey: *hostKey, AuthorizedKeys: *authorized, Observers: *observers,
				IdleTimeout: *idle, MaxSessions: *maxSessions,
				Bounds: evidence.Bounds{Timeout: *queryTimeout, MaxHits: *maxHits, MaxBytes: evidence.DefaultServeBounds.MaxBytes},
				Log:    slog.New(slog.NewTextHandler(e.stderr, nil)), ConsoleLog: clog,
				Getenv: os.Getenv, Version: cordonVersion(),
			})
		}
		if (*dir == "") == (*scenario == "") || (*scenario != "" && len(inputs) > 0) {
			fs.Usage()
			return fmt.Errorf("%w: serve needs --incident DIR or --drill SCENARIO (files to follow go with --incident only)", errUsage)
		}
		if *scenario == "" && (*facilitators != "" || *out != "") {
			return fmt.Errorf("%w: --facilitators and --out are for --drill", errUsage)
		}
		if *format != "" && len(inputs) == 0 {
			return fmt.Errorf("%w: --format is for the evidence files to follow: name them after --incident DIR", errUsage)
		}
		if *format != "" {
			if _, err := ingest.ByFormat(*format); err != nil {
				return fmt.Errorf("%w: %w", errUsage, err)
			}
		}
		if *queryTimeout <= 0 || *maxHits <= 0 {
			return fmt.Errorf("%w: --query-timeout and --max-hits must be positive", errUsage)
		}
		if *idle < 0 || *maxSessions < 0 {
			return fmt.Errorf("%w: --idle-timeout and --max-sessions cannot be negative (0 turns them off)", errUsage)
		}
		for _, in := range inputs {
			if in == "-" {
				return fmt.Errorf("%w: the server follows files, not stdin; pipe it with cordon ingest --incident DIR - first", errUsage)
			}
		}
		// a FIFO or a device would hold the background ingest for ever
		if _, err := ingest.Expand(inputs); err != nil {
			return err
		}
		if *scenario != "" && *facilitators == "" {
			return fmt.Errorf("%w: --drill needs --facilitators PATH: the keys that run the drill's clock", errUsage)
		}
		var d *drill.Drill
		if *scenario != "" {
			s, err := drill.Load(*scenario)
			if err != nil {
				return err
			}
			if *out == "" {
				*out = filepath.Join(stateHome(), "cordon", "drills", s.Scenario+"-"+nowStamp())
			}
			if d, err = drill.Start(ctx, s, filepath.Join(*out, "workspace"), nil); err != nil {
				return err
			}
			defer func() {
				d.Close()
				fmt.Fprintf(e.stderr, "cordon: drill workspace %s; debrief it with: cordon drill debrief %s\n", d.WS.Dir, d.WS.Dir)
			}()
			*dir = d.WS.Dir
		}
		abs, err := filepath.Abs(*dir)
		if err != nil {
			return err
		}
		if *authorized == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return fmt.Errorf("%w: no home directory for ~/.ssh/authorized_keys; pass --authorized-keys PATH", errUsage)
			}
			*authorized = filepath.Join(home, ".ssh", "authorized_keys")
		}
		clog, closeLog, err := debugLog(*debug)
		if err != nil {
			return err
		}
		defer closeLog()
		opt := serve.Options{
			Dir: abs, HostKey: *hostKey, AuthorizedKeys: *authorized, Observers: *observers,
			Inputs: inputs, Format: *format, IdleTimeout: *idle, MaxSessions: *maxSessions,
			Bounds: evidence.Bounds{Timeout: *queryTimeout, MaxHits: *maxHits, MaxBytes: evidence.DefaultServeBounds.MaxBytes},
			Exec:   serveExec(abs), Log: slog.New(slog.NewTextHandler(e.stderr, nil)), ConsoleLog: clog,
			Getenv: os.Getenv, AllowShared: shared(), Version: cordonVersion(),
		}
		if cfg, err := consoleConfig(); err != nil {
			fmt.Fprintf(e.stderr, "cordon: %v (the consoles use the defaults)\n", err)
		} else {
			opt.Console = &cfg
		}
		if d != nil {
			// a drill serves the console only: findings or a search from
			// outside it would hand the team answers ahead of the scenario
			opt.Exec, opt.Drill, opt.Facilitators, opt.DrillDebrief = nil, d, *facilitators, *out
		}
		srv, err := serve.New(opt)
		if err != nil {
			return err
		}
		ln, err := net.Listen("tcp", *listen)
		if err != nil {
			srv.Close()
			return fmt.Errorf("listen: %w", err)
		}
		if !loopback(ln.Addr()) {
			fmt.Fprintf(e.stderr, "cordon: warning: listening on %s, beyond this machine; only keys in %s get in\n", ln.Addr(), *authorized)
		}
		if srv.HostKeyCreated() {
			fmt.Fprintf(e.stderr, "cordon: generated host key %s\n", srv.HostKeyPath())
		}
		fmt.Fprintf(e.stderr, "cordon: serving %s on %s\ncordon: host key fingerprint %s\n", abs, ln.Addr(), srv.Fingerprint())
		if len(inputs) > 0 {
			fmt.Fprintf(e.stderr, "cordon: following %s\n", strings.Join(inputs, " "))
		}
		return srv.Serve(ctx, ln)
	}
}

// serveExec runs a command the server allowed as `cordon NAME --incident DIR
// ARGS...`, through the same subcommands and exit codes as the command line,
// on the workspace the server holds: while it follows evidence it holds the
// index for writing, and a second open would find it locked.
func serveExec(dir string) serve.ExecFunc {
	return func(ctx context.Context, ws *incident.Workspace, args []string, stdout, stderr io.Writer) int {
		e := &env{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr, ws: ws}
		if c, _, err := newRoot(e).Find(args[:1]); err != nil || !c.HasParent() || c.RunE == nil {
			fmt.Fprintf(stderr, "cordon: %s is not available on this server (this cordon has no such command)\n", args[0])
			return exitNotFound
		}
		full := append([]string{args[0], "--incident", dir}, args[1:]...)
		return exitCode(stderr, execute(ctx, e, full))
	}
}

// openIncident opens dir read-only, or takes the workspace a server
// already holds (e.ws); done releases what it opened.
func (e *env) openIncident(dir string, opts ...incident.Option) (ws *incident.Workspace, done func(), err error) {
	if e.ws != nil {
		return e.ws, func() {}, nil
	}
	if ws, err = incident.Open(dir, opts...); err != nil {
		return nil, nil, err
	}
	ws.ReadsAlone() // a command, one read after another
	return ws, func() { ws.Close() }, nil
}

// openOrHeld opens the workspace, or, while a following ingest holds its
// index, the answer that ingest keeps after each round with the evidence
// read through it (incident.OpenHeld), saying so on stderr.
func (e *env) openOrHeld(dir string, opts ...incident.Option) (*incident.Workspace, func(), error) {
	ws, done, err := e.openIncident(dir, opts...)
	if !errors.Is(err, journal.ErrLocked) {
		return ws, done, err
	}
	held, herr := incident.OpenHeld(dir, opts...)
	if herr != nil {
		return nil, nil, fmt.Errorf("%w; %v", err, herr)
	}
	reads := "the evidence is read through it"
	if why := held.HeldReads(); why != "" {
		reads = "the evidence cannot be read (" + why + ")"
	}
	order := ""
	if n := held.HeldForOrder(); n > 0 {
		order = fmt.Sprintf(", without %d events it holds for order", n)
	}
	fmt.Fprintf(e.stderr, "cordon: a following ingest holds the index; its detectors' answer as it last kept it (%s%s); %s\n", incident.Stamp(held.HeldAt()), order, reads)
	return held, func() { held.Close() }, nil
}

// serveFleet serves the fleet's console on listen: one board for every
// session, fed from the findings' stream; a responder's enter pulls an
// agent's incident into a new workspace under fo.into and opens it in
// that session.
func serveFleet(ctx context.Context, e *env, fo fleetOpen, listen string, opt serve.Options) error {
	nc, js, err := fleet.Connect(fo.url, "cordon serve", 0)
	if err != nil {
		return err
	}
	defer nc.Close()
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opt.Fleet = &serve.Fleet{
		Board: followFleet(fctx, js, fo.findings), Source: fo.findings,
		Pull: func(ctx context.Context, sel fleetview.Selection) (string, error) {
			dir := pullDir(fo.into, sel)
			return dir, pullInto(ctx, js, fo, sel, dir)
		},
	}
	if cfg, err := consoleConfig(); err == nil {
		opt.Console = &cfg
	}
	srv, err := serve.New(opt)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		srv.Close()
		return fmt.Errorf("listen: %w", err)
	}
	if !loopback(ln.Addr()) {
		fmt.Fprintf(e.stderr, "cordon: warning: listening on %s, beyond this machine; only keys in %s get in\n", ln.Addr(), opt.AuthorizedKeys)
	}
	if srv.HostKeyCreated() {
		fmt.Fprintf(e.stderr, "cordon: generated host key %s\n", srv.HostKeyPath())
	}
	fmt.Fprintf(e.stderr, "cordon: serving the fleet's findings (stream %s) on %s\ncordon: host key fingerprint %s\n", evidence.Printable(fo.findings), ln.Addr(), srv.Fingerprint())
	return srv.Serve(ctx, ln)
}

func loopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}
