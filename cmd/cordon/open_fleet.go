package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest/relay"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/fleetview"
	"github.com/cordon-ir/cordon/watch"
	"github.com/nats-io/nats.go/jetstream"
)

// fleetOpen is what cordon open --nats needs beyond the console's flags.
type fleetOpen struct {
	url, findings, events, into, debug string
	routes                             []fleet.Route
	shared                             bool
}

// openFleet runs the live console across the fleet: the agents ranked from
// the findings the watchers publish; enter pulls the chosen agent's
// evidence into a new workspace under fo.into and opens the console on
// it; quitting that console comes back to the fleet.
func openFleet(ctx context.Context, e *env, fo fleetOpen) error {
	nc, js, err := fleet.Connect(fo.url, "cordon open", 0)
	if err != nil {
		return err
	}
	defer nc.Close()
	log, closeLog, err := debugLog(fo.debug)
	if err != nil {
		return err
	}
	defer closeLog()
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	board := followFleet(fctx, js, fo.findings)
	com := common.New(fctx, common.DefaultStyles(renderer(e.stdout), darkBackground()), common.DefaultKeyMap(), log)
	m := fleetview.New(com, board, fleetview.Options{Source: fo.findings})
	for {
		p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithOutput(e.stdout))
		final, err := p.Run()
		if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
			return fmt.Errorf("console: %w", err)
		}
		fm, ok := final.(fleetview.Model)
		if !ok {
			return ctx.Err()
		}
		sel, chosen := fm.Chosen()
		if !chosen {
			return nil
		}
		m = fm.Resume()
		if err := pullAndOpen(ctx, e, js, fo, sel, log); err != nil {
			// the fleet stays: say why this one did not open
			fmt.Fprintf(e.stderr, "cordon: %s\n", evidence.PrintableMessage(err.Error()))
			m = m.Say(err.Error())
		}
	}
}

// followFleet keeps a board of the findings on the stream, and of the
// holdings beside it, until ctx ends.
func followFleet(ctx context.Context, js jetstream.JetStream, stream string) *fleetview.Board {
	board := fleetview.NewBoard()
	go watch.FollowFindings(ctx, js, stream, func(m watch.Message) { board.Apply(m.Finding, m.Change) }, board.SetStatus)
	go watch.FollowHoldings(ctx, js, stream, func(h watch.Holding) { board.ApplyHolding(h.Agent, h.Holding, h.Standing) }, board.SetHoldingsStatus)
	return board
}

// pullDir is a new workspace's folder for sel's agent under into.
func pullDir(into string, sel fleetview.Selection) string {
	return filepath.Join(into, fleet.Token(sel.Agent)+"-"+time.Now().UTC().Format("20060102-150405.000000000"))
}

// pullAndOpen pulls sel's agent's incident (pullInto) into a new
// workspace and opens the console on it until it quits.
func pullAndOpen(ctx context.Context, e *env, js jetstream.JetStream, fo fleetOpen, sel fleetview.Selection, log *slog.Logger) error {
	dir := pullDir(fo.into, sel)
	fmt.Fprintf(e.stderr, "cordon: pulling %s from stream %s into %s\n", evidence.Printable(sel.Agent), evidence.Printable(fo.events), dir)
	if err := pullInto(ctx, js, fo, sel, dir); err != nil {
		return err
	}
	ws, err := incident.Open(dir, incident.AllowShared(fo.shared), storeOption())
	if err != nil {
		return err
	}
	defer ws.Close()
	h, err := ws.Handle(incident.HandleOptions{Getenv: os.Getenv})
	if err != nil {
		return err
	}
	ccfg, cfgErr := consoleConfig()
	tm := tui.New(h, tui.Options{Renderer: renderer(e.stdout), Dark: darkBackground(), Logger: log, Ctx: ctx,
		Config: &ccfg, ConfigErr: cfgErr, Version: cordonVersion()})
	p := tea.NewProgram(tm, tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx), tea.WithOutput(e.stdout))
	final, runErr := p.Run()
	fmt.Fprintf(e.stderr, "cordon: reopen with: cordon open %s\n", ws.Dir)
	if runErr != nil && !errors.Is(runErr, tea.ErrProgramKilled) {
		return fmt.Errorf("console: %w", runErr)
	}
	if fm, ok := final.(tui.Model); ok && fm.Err() != nil {
		return fmt.Errorf("console: %w", fm.Err())
	}
	return nil
}

// pullInto pulls every event of sel's agent the stream holds (and the
// identity records that attribute them) into a new workspace dir, as
// cordon pull --agent A does, and runs the detectors.
func pullInto(ctx context.Context, js jetstream.JetStream, fo fleetOpen, sel fleetview.Selection, dir string) error {
	ws, err := incident.Create(dir, incident.AllowShared(fo.shared), storeOption())
	if err != nil {
		return err
	}
	defer ws.Close()
	cfg := fleet.PullConfig{Stream: fo.events, Routes: fo.routes, Agents: []string{sel.Agent}}
	results, err := ws.Receive(ctx, "pull-"+nowStamp()+".jsonl", func(w io.Writer) (string, error) {
		pr, perr := fleet.Pull(ctx, js, cfg, w)
		return pr.From(cfg), perr
	}, incident.IngestOptions{Format: relay.Format, Actor: journal.CurrentActor(journal.ViaConsole)})
	if err != nil {
		return fmt.Errorf("pull %s: %w", evidence.Printable(sel.Agent), err)
	}
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("the pulled events were not all ingested: %w", r.Err)
		}
	}
	if _, err := ws.Detect(ctx, journal.CurrentActor(journal.ViaConsole)); err != nil {
		return fmt.Errorf("the evidence is in %s; the detectors failed: %w", dir, err)
	}
	return nil
}
