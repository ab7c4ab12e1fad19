package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/eval"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/cordon-ir/cordon/watch"
	"github.com/muesli/termenv"
	"github.com/spf13/cobra"
)

const openArgs = "DIR | FILE|DIR... [--incident DIR] [--format F] [--no-follow] [--sign-key KEY] [--debug LOG] | --nats URL [--findings-stream S] [--stream S] [--pull-into DIR] [--raw-route SUBJECT=FORMAT]..."

func cmdOpen(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR` (default: a new one under $XDG_STATE_HOME/cordon/incidents)")
	format := fs.String("format", "", "read every input as `FORMAT` instead of sniffing (see cordon formats)")
	noFollow := fs.Bool("no-follow", false, "stop reading the evidence files once they are ingested (default: keep following appended lines)")
	debug := fs.String("debug", "", "write a debug log to `FILE`")
	signKey := fs.String("sign-key", "", "sign a checkpoint of the journal every 50 entries and on quitting with this SSH private key `FILE` (kept outside the workspace)")
	natsURL := fs.String("nats", "", "a live console across the fleet: the agents ranked from the findings the watchers publish on this NATS `URL` (see docs/fleet.md)")
	findingsStream := fs.String("findings-stream", watch.DefaultFindingsStream, "with --nats: the findings' stream")
	eventsStream := fs.String("stream", fleet.DefaultStream, "with --nats: the events' stream an incident is pulled from")
	pullInto := fs.String("pull-into", "", "with --nats: make the pulled incidents' workspaces under `DIR` (default $XDG_STATE_HOME/cordon/incidents)")
	evalSuite := fs.String("eval-suite", "", "the Evaluation pane scores this suite `FILE` (default: cordon.yaml's eval.suite, else the built-in suite; see docs/eval.md)")
	evalRun := fs.String("eval-run", "", "the Evaluation pane scores the ledger run `ID` first (default: cordon.yaml's eval.run, else the whole case; r cycles the runs)")
	routes := fs.StringArray("raw-route", nil, "with --nats: pull messages on `SUBJECT=FORMAT` as raw records of that format; repeatable")
	shared := allowSharedFlag(fs)
	c.RunE = func(cmd *cobra.Command, inputs []string) error {
		ctx := cmd.Context()
		var err error
		if *natsURL != "" {
			if *dir != "" || len(inputs) > 0 || *signKey != "" || *format != "" || *evalSuite != "" || *evalRun != "" {
				return fmt.Errorf("%w: open --nats is the fleet's console: it takes no workspace, evidence, --format, --sign-key or --eval-* (enter on an agent pulls and opens its incident)", errUsage)
			}
			if !isTerminal(e.stdout) {
				return fmt.Errorf("%w: cordon open is an interactive console and needs a terminal", errUsage)
			}
			fo := fleetOpen{url: *natsURL, findings: *findingsStream, events: *eventsStream, into: *pullInto, debug: *debug, shared: shared()}
			if fo.into == "" {
				fo.into = filepath.Join(stateHome(), "cordon", "incidents")
			}
			for _, r := range *routes {
				rt, err := fleet.ParseRoute(r)
				if err != nil {
					return fmt.Errorf("%w: %v", errUsage, err)
				}
				fo.routes = append(fo.routes, rt)
			}
			return openFleet(ctx, e, fo)
		}
		evalOver := incident.EvalConfig{Suite: *evalSuite, Run: *evalRun}
		if evalOver.Suite != "" {
			// checked now: a suite that does not load is a usage error,
			// not a pane that says so later
			abs, err := filepath.Abs(evalOver.Suite)
			if err != nil {
				return err
			}
			if _, err := eval.Load(abs); err != nil {
				return fmt.Errorf("%w: --eval-suite: %v", errUsage, err)
			}
			evalOver.Suite = abs
		}
		if *dir == "" && len(inputs) == 0 {
			fs.Usage()
			return fmt.Errorf("%w: open needs an incident workspace or evidence to ingest", errUsage)
		}
		for _, in := range inputs {
			if in == "-" {
				return fmt.Errorf("%w: the console reads keys from the terminal, not evidence from stdin; pipe it with cordon ingest --incident DIR - first", errUsage)
			}
		}
		// a FIFO or a device would hold the background ingest for ever
		if _, err := ingest.Expand(inputs); err != nil {
			return err
		}
		if !isTerminal(e.stdout) {
			return fmt.Errorf("%w: cordon open is an interactive console and needs a terminal; use cordon search for scripts", errUsage)
		}
		if *dir == "" && len(inputs) == 1 && incident.IsWorkspace(inputs[0]) {
			*dir, inputs = inputs[0], nil
		}
		var ws *incident.Workspace
		if len(inputs) == 0 {
			ws, err = incident.Open(*dir, incident.AllowShared(shared()), storeOption())
		} else {
			if *dir == "" {
				*dir = incident.DirFor(stateHome(), inputs)
			}
			ws, err = incident.Create(*dir, incident.AllowShared(shared()), storeOption())
		}
		if err != nil {
			return err
		}
		defer ws.Close()
		fmt.Fprintf(e.stderr, "cordon: incident workspace %s\n", ws.Dir)
		if *signKey != "" {
			s, err := journal.LoadSigner(*signKey, ws.Dir)
			if err != nil {
				return err
			}
			ws.SignJournal(s, consoleSignEvery)
			defer func() {
				if err := ws.SealJournal(context.WithoutCancel(ctx), journal.CurrentActor(journal.ViaConsole)); err != nil {
					fmt.Fprintf(e.stderr, "cordon: the journal was not sealed: %v\n", err)
				}
			}()
		}

		log, closeLog, err := debugLog(*debug)
		if err != nil {
			return err
		}
		defer closeLog()
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var run *incident.IngestRun
		if len(inputs) > 0 {
			run = ws.StartIngest(cctx, inputs, incident.IngestOptions{Format: *format, Actor: journal.CurrentActor(journal.ViaConsole)}, !*noFollow)
		}
		h, err := ws.Handle(incident.HandleOptions{Ingest: run, Getenv: os.Getenv})
		if err != nil {
			return err
		}
		cfg, cfgErr := consoleConfig()
		m := tui.New(h, tui.Options{Renderer: renderer(e.stdout), Dark: darkBackground(), Logger: log, Ctx: cctx,
			Config: &cfg, ConfigErr: cfgErr, Version: cordonVersion(), Eval: evalOver})
		p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(cctx),
			tea.WithOutput(e.stdout))
		final, runErr := p.Run()
		cancel()
		if run != nil {
			u := run.Stop()
			if u.Following {
				// the last round read nothing new: say what the whole run did
				fmt.Fprintf(e.stderr, "cordon: %d new events from %d files while the console was open\n", u.Added, len(u.Results))
			} else {
				printResults(e.stdout, u.Results, false)
			}
			if !u.Done || u.Err != nil {
				fmt.Fprintf(e.stderr, "cordon: ingest stopped with the console; resume it with: cordon ingest --incident %s %s\n", ws.Dir, strings.Join(inputs, " "))
			}
		}
		fmt.Fprintf(e.stderr, "cordon: reopen with: cordon open %s\n", ws.Dir)
		if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) {
			return fmt.Errorf("console: %w", runErr)
		}
		if fm, ok := final.(tui.Model); ok && fm.Err() != nil {
			return fmt.Errorf("console: %w", fm.Err())
		}
		return nil
	}
}

// consoleSignEvery is how many journal entries pass between the signed
// checkpoints of a console opened with --sign-key.
const consoleSignEvery = 50

// renderer styles for the terminal on w; NO_COLOR (any value) turns every
// colour and attribute off, and the console stays readable by its labels
// and glyphs.
func renderer(w io.Writer) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(w)
	if os.Getenv("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}

// stateHome is $XDG_STATE_HOME, or ~/.local/state.
func stateHome() string {
	if s := os.Getenv("XDG_STATE_HOME"); s != "" {
		return s
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "."
	}
	return filepath.Join(home, ".local", "state")
}

// darkBackground guesses the background from COLORFGBG ("15;0" is light on
// dark) without querying the terminal, which can stall a slow SSH session.
func darkBackground() bool {
	fgbg := os.Getenv("COLORFGBG")
	i := strings.LastIndexByte(fgbg, ';')
	if i < 0 {
		return true
	}
	switch fgbg[i+1:] {
	case "7", "15":
		return false
	}
	return true
}

// debugLog opens the --debug log, or discards.
func debugLog(path string) (*slog.Logger, func(), error) {
	if path == "" {
		return slog.New(slog.DiscardHandler), func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("debug log: %w", err)
	}
	var w io.Writer = f
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})), func() { f.Close() }, nil
}
