package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/relay"
	"github.com/spf13/cobra"
)

const pullArgs = "--nats URL [--stream S] --agent A[,B] --since T [--until T] --incident DIR [--store victorialogs://HOST:PORT] [--follow] [--raw-route SUBJECT=FORMAT]... [--json]"

// pullScope is the agents and the span a pull or a slice of the archive
// takes, from their flags.
func pullScope(agents, since, until string) (fleet.PullConfig, error) {
	var cfg fleet.PullConfig
	for _, a := range strings.Split(agents, ",") {
		if a = strings.TrimSpace(a); a != "" {
			cfg.Agents = append(cfg.Agents, a)
		}
	}
	var err error
	if cfg.Since, err = time.Parse(time.RFC3339Nano, since); err != nil {
		return cfg, fmt.Errorf("%w: --since: %v", errUsage, err)
	}
	if until != "" {
		if cfg.Until, err = time.Parse(time.RFC3339Nano, until); err != nil {
			return cfg, fmt.Errorf("%w: --until: %v", errUsage, err)
		}
		if cfg.Until.Before(cfg.Since) {
			return cfg, fmt.Errorf("%w: --until is before --since", errUsage)
		}
	}
	return cfg, nil
}

func cmdPull(e *env, c *cobra.Command) {
	fs := c.Flags()
	url := fs.String("nats", "", "the NATS `URL` (several, comma-separated, for a cluster; default $NATS_URL)")
	stream := fs.String("stream", fleet.DefaultStream, "the events' stream")
	agents := fs.String("agent", "", "the agents whose evidence is pulled, `A[,B]`, as attribution names them")
	since := fs.String("since", "", "events at or after `T` (RFC 3339)")
	until := fs.String("until", "", "events at or before `T` (RFC 3339; default: all)")
	dir := fs.String("incident", "", "incident workspace `DIR` (created if missing)")
	routes := fs.StringArray("raw-route", nil, "read messages on `SUBJECT=FORMAT` as raw records of that format (falco.>=falco); repeatable")
	detectAfter := fs.Bool("detect", true, "run the detectors once the evidence is in and keep their result with the case")
	store := fs.String("store", "", "keep the case's events in `victorialogs://host:port[,host:port]` instead of the index in the folder (recorded with the case; or store: in its cordon.yaml)")
	follow := fs.Bool("follow", false, "after the stream as it stands, keep pulling what is stored on it until interrupted")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "the pull's result, then the received file's, as JSON lines")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *url == "" {
			*url = os.Getenv("NATS_URL")
		}
		if *url == "" || *agents == "" || *since == "" || *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: pull needs --nats URL (or $NATS_URL), --agent, --since and --incident", errUsage)
		}
		if err := incident.CheckStore(*store); err != nil {
			return fmt.Errorf("%w: --store: %v", errUsage, err)
		}
		cfg, err := pullScope(*agents, *since, *until)
		if err != nil {
			return err
		}
		cfg.Stream = *stream
		for _, r := range *routes {
			rt, err := fleet.ParseRoute(r)
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			cfg.Routes = append(cfg.Routes, rt)
		}
		rejected := &messageRejects{w: e.stderr}
		cfg.Reject = rejected.print
		nc, js, err := fleet.Connect(*url, "cordon pull", 0)
		if err != nil {
			return err
		}
		defer nc.Close()
		ws, err := incident.Create(*dir, incident.AllowShared(shared()), incident.Store(*store))
		if err != nil {
			return err
		}
		defer ws.Close()
		var pr fleet.PullResult
		name := "pull-" + time.Now().UTC().Format("20060102T150405.000000000Z") + ".jsonl"
		if *follow {
			fmt.Fprintln(e.stderr, "following; ctrl-c stops")
			from := fmt.Sprintf("nats stream %s, followed, agents %s, events from %s", *stream, strings.Join(cfg.Agents, ","), cfg.Since.UTC().Format(time.RFC3339Nano))
			opt := incident.IngestOptions{Format: relay.Format}
			err := ws.ReceiveFollow(ctx, name, from, func(w io.Writer, flush func() error) error {
				var perr error
				pr, perr = fleet.PullFollow(ctx, js, cfg, w, flush)
				return perr
			}, opt, 500*time.Millisecond, func(res []ingest.FileResult) {
				var news []ingest.FileResult
				for _, r := range res {
					if r.New > 0 || r.Rejects > 0 || r.Err != nil {
						news = append(news, r)
					}
				}
				printResults(e.stdout, news, *asJSON)
			})
			if *asJSON {
				jsonEncoder(e.stdout).Encode(pr)
			} else {
				fmt.Fprintf(e.stdout, "read %d events from stream %s up to sequence %d; kept %d\n", pr.Read, evidence.Printable(pr.Stream), pr.Upto, pr.Selected)
			}
			if err != nil {
				return fmt.Errorf("pull: %w", err)
			}
			if *detectAfter {
				// once the follow ends, over everything it received
				if err := detectNow(context.WithoutCancel(ctx), e, ws, *asJSON); err != nil {
					return err
				}
			}
			return ctx.Err()
		}
		results, err := ws.Receive(ctx, name, func(w io.Writer) (string, error) {
			var perr error
			pr, perr = fleet.Pull(ctx, js, cfg, w)
			return pr.From(cfg), perr
		}, incident.IngestOptions{Format: relay.Format})
		if err != nil {
			return fmt.Errorf("pull: %w", err)
		}
		rejected.summary()
		from := fmt.Sprintf("stream %s up to sequence %d", evidence.Printable(pr.Stream), pr.Upto)
		return received(ctx, e, ws, pr, cfg, from, "pulled", results, *detectAfter, *asJSON)
	}
}

// received says what a pull or a slice of the archive read from where
// (from) and kept, and the received file's ingest; it fails when that
// ingest did not take every event, and runs the detectors when asked.
func received(ctx context.Context, e *env, ws *incident.Workspace, pr fleet.PullResult, cfg fleet.PullConfig, from, what string,
	results []ingest.FileResult, detect, asJSON bool) error {
	if asJSON {
		jsonEncoder(e.stdout).Encode(pr)
		printResults(e.stdout, results, true)
	} else {
		fmt.Fprintf(e.stdout, "read %d events (%d distinct) from %s; kept %d: %d identity records and, by agent,",
			pr.Read, pr.Distinct, from, pr.Selected, pr.Keys)
		for _, a := range cfg.Agents {
			fmt.Fprintf(e.stdout, " %s %d", evidence.Printable(a), pr.ByAgent[a])
		}
		fmt.Fprintln(e.stdout)
		printResults(e.stdout, results, false)
	}
	for _, r := range results {
		if r.Err != nil {
			return fmt.Errorf("the %s events were not all ingested: %w", what, r.Err)
		}
	}
	if detect {
		return detectNow(ctx, e, ws, asJSON)
	}
	return nil
}
