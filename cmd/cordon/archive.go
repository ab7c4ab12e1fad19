package main

import (
	"fmt"
	"os"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/incident"
	"github.com/spf13/cobra"
)

const archiveArgs = "--nats URL [--stream S] --incident ARCHIVE [--store victorialogs://HOST:PORT] [--drain] [--ack-wait D] [--raw-route SUBJECT=FORMAT]... [--json]"

// archiveConsumerPrefix names an archive's durable consumer, after its
// case on the store: the same archive folder goes on where it stopped.
const archiveConsumerPrefix = "cordon-archive-"

func cmdArchive(e *env, c *cobra.Command) {
	fs := c.Flags()
	url := fs.String("nats", "", "the NATS `URL` (several, comma-separated, for a cluster; default $NATS_URL)")
	stream := fs.String("stream", fleet.DefaultStream, "the events' stream")
	dir := fs.String("incident", "", "the archive's workspace `DIR` (created if missing): its journal, checkpoints and the name of its case on the store")
	store := fs.String("store", "", "keep the archive's events in `victorialogs://host:port[,host:port]` (recorded with the archive; or store: in its cordon.yaml)")
	routes := fs.StringArray("raw-route", nil, "read messages on `SUBJECT=FORMAT` as raw records of that format (falco.>=falco); repeatable")
	batch := fs.Int("batch", 5000, "events stored at once")
	ackWait := fs.Duration("ack-wait", time.Minute, "how long the server waits for a message's acknowledgement before giving it again: far past a batch's write, and how long a restart waits for what a killed archive held")
	drain := fs.Bool("drain", false, "stop once everything on the stream is archived, instead of following it")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "what the archive did, as JSON")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *url == "" {
			*url = os.Getenv("NATS_URL")
		}
		if *url == "" || *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: archive needs --nats URL (or $NATS_URL) and --incident", errUsage)
		}
		if err := incident.CheckStore(*store); err != nil {
			return fmt.Errorf("%w: --store: %v", errUsage, err)
		}
		cfg := fleet.ArchiveConfig{Reader: fleet.ReaderConfig{Stream: *stream, AckWait: *ackWait}, Batch: *batch, Drain: *drain}
		for _, r := range *routes {
			rt, err := fleet.ParseRoute(r)
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			cfg.Reader.Routes = append(cfg.Reader.Routes, rt)
		}
		rejected := &messageRejects{w: e.stderr}
		cfg.Reader.Reject = rejected.print
		nc, js, err := fleet.Connect(*url, "cordon archive", 0)
		if err != nil {
			return err
		}
		defer nc.Close()
		ws, err := incident.Create(*dir, incident.AllowShared(shared()), incident.Store(*store))
		if err != nil {
			return err
		}
		defer ws.Close()
		arch, err := ws.Archiver(ctx)
		if err != nil {
			return err
		}
		cfg.Reader.Durable = archiveConsumerPrefix + ws.StoreCase()
		if !*drain {
			fmt.Fprintln(e.stderr, "archiving; ctrl-c stops")
		}
		start := time.Now()
		res, err := fleet.Archive(ctx, js, cfg, arch)
		text := fmt.Sprintf("archived %d events (%d new) from nats stream %s up to sequence %d, consumer %s", res.Read, res.Added, res.Stream, res.Upto, res.Consumer)
		if cerr := arch.Close(ctx, text); err == nil {
			err = cerr
		}
		rejected.summary()
		if *asJSON {
			jsonEncoder(e.stdout).Encode(res)
		} else {
			fmt.Fprintf(e.stdout, "%s in %s; %d copies dropped, %d messages rejected\n", evidence.Printable(text),
				time.Since(start).Round(time.Millisecond), res.Reader.Duplicates, res.Reader.Rejected)
		}
		if err != nil {
			return fmt.Errorf("archive: %w; what was not stored is read again by the next run", err)
		}
		return nil
	}
}

func cmdArchiveCase(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "the new case's workspace `DIR`")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "the case made, as JSON")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		if len(pos) != 1 || *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: archive case needs the archive's folder and --incident DIR", errUsage)
		}
		ws, err := incident.Create(*dir, incident.AllowShared(shared()), incident.CaseOf(pos[0]))
		if err != nil {
			return err
		}
		defer ws.Close()
		total := ws.Counts().Total
		first, last := ws.Span()
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(map[string]any{"incident": *dir, "store": ws.StoreAddr(), "case": ws.StoreCase(), "events": total, "first": first, "last": last})
		}
		fmt.Fprintf(e.stdout, "%s reads the %d events of archive %s (case %s on %s, %s to %s); open it with: cordon open %s\n",
			*dir, total, pos[0], ws.StoreCase(), ws.StoreAddr(), first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339), *dir)
		return nil
	}
}
