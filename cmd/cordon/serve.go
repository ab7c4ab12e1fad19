package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/serve"
)

const serveArgs = "--incident DIR | --drill SCENARIO [--out DIR] [--facilitators PATH] [--listen 127.0.0.1:2222] [--host-key PATH] [--authorized-keys PATH] [--observers PATH] [--debug LOG]"

// cmdServe serves the console of one incident over SSH until SIGTERM or
// SIGINT, then shuts down gracefully.
func cmdServe(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "serve", serveArgs)
	dir := fs.String("incident", "", "incident workspace `DIR` to serve")
	listen := fs.String("listen", "127.0.0.1:2222", "`ADDR` to listen on (loopback unless you say otherwise)")
	hostKey := fs.String("host-key", "", "host key `PATH` (default DIR/"+serve.HostKeyFile+", created on first start, mode 0600)")
	authorized := fs.String("authorized-keys", "", "responders' public keys, OpenSSH format (default ~/.ssh/authorized_keys); re-read when it changes")
	observers := fs.String("observers", "", "observers' public keys (same format): they get a read-only console")
	debug := fs.String("debug", "", "write the consoles' debug log to `FILE`")
	scenario := fs.String("drill", "", "serve a tabletop drill of `SCENARIO` instead of an incident: --authorized-keys are the participants")
	facilitators := fs.String("facilitators", "", "with --drill: the keys of those who run the drill's clock (same format)")
	out := fs.String("out", "", "with --drill: the drill's new folder `DIR` (workspace and debrief; default under $XDG_STATE_HOME/cordon/drills)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if (*dir == "") == (*scenario == "") || len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("%w: serve needs --incident DIR or --drill SCENARIO, and no other arguments", errUsage)
	}
	if *scenario == "" && (*facilitators != "" || *out != "") {
		return fmt.Errorf("%w: --facilitators and --out are for --drill", errUsage)
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
		Exec: serveExec(abs), Log: slog.New(slog.NewTextHandler(e.stderr, nil)), ConsoleLog: clog,
		Getenv: os.Getenv,
	}
	if d != nil {
		// the drill's workspace is open for writing here: a command would
		// find it locked, so a drill serves the console only
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
	return srv.Serve(ctx, ln)
}

// serveExec runs a command the server allowed as `cordon NAME --incident DIR
// ARGS...`, through the same subcommands and exit codes as the command line.
func serveExec(dir string) serve.ExecFunc {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		e := &env{stdin: strings.NewReader(""), stdout: stdout, stderr: stderr}
		for _, c := range commands() {
			if c.name == args[0] && c.run != nil {
				full := append([]string{"--incident", dir}, args[1:]...)
				return exitCode(stderr, c.run(ctx, e, full))
			}
		}
		fmt.Fprintf(stderr, "cordon: %s is not available on this server (this cordon has no such command)\n", args[0])
		return exitNotFound
	}
}

func loopback(a net.Addr) bool {
	t, ok := a.(*net.TCPAddr)
	return ok && t.IP.IsLoopback()
}
