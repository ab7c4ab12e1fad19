package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/authz"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/watch"
	"github.com/spf13/cobra"
)

const watchArgs = "--nats URL [--stream S] [--durable NAME] [--rules FILE|DIR] [--lateness D] [--idle D] [--raw-route SUBJECT=FORMAT]... [--verdicts [--verdict-name NAME] [--policy FILE] [--ext-authz ADDR]]"

func cmdWatch(e *env, c *cobra.Command) {
	fs := c.Flags()
	url := fs.String("nats", "", "the NATS `URL` (several, comma-separated, for a cluster; default $NATS_URL)")
	stream := fs.String("stream", fleet.DefaultStream, "the events' stream")
	durable := fs.String("durable", "cordon-watch", "the durable consumer's `NAME`, and of the bucket keeping what it published (CORDON_WATCH_NAME)")
	rulesPath := fs.String("rules", "", "rules from `FILE|DIR` (YAML, docs/rules.md) instead of the built-in ones")
	lateness := fs.Duration("lateness", watch.DefaultLateness, "how far behind the latest event time an event may arrive and still be taken in order; later ones make a replay of the stream")
	idle := fs.Duration("idle", 0, "wall time without an event after which every event held is released (default: the lateness)")
	asJSON := jsonFlag(fs, "each batch that changed something, then the totals, as JSON lines")
	routes := fs.StringArray("raw-route", nil, "read messages on `SUBJECT=FORMAT` as raw records of that format (falco.>=falco); repeatable")
	verdicts := fs.Bool("verdicts", false, "answer cordon.verdict.<agent> requests and keep their receipts (docs/verdicts.md)")
	vname := fs.String("verdict-name", "", "the `NAME` verdicts and the receipt chain carry (default: the durable)")
	policyPath := fs.String("policy", "", "the verdict policy from `FILE` (YAML, docs/verdicts.md) instead of the built-in one")
	extAuthz := fs.String("ext-authz", "", "also answer Envoy's ext_authz v3 (gRPC) on `ADDR` (host:port) from the same verdicts (docs/verdicts.md)")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *url == "" {
			*url = os.Getenv("NATS_URL")
		}
		if *url == "" {
			fs.Usage()
			return fmt.Errorf("%w: watch needs --nats URL (or $NATS_URL)", errUsage)
		}
		cfg := watch.Config{Stream: *stream, Durable: *durable, Lateness: *lateness, Idle: *idle}
		for _, r := range *routes {
			rt, err := fleet.ParseRoute(r)
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			cfg.Routes = append(cfg.Routes, rt)
		}
		if *rulesPath != "" {
			rules, err := detect.Load(*rulesPath)
			if err != nil {
				return fmt.Errorf("%w: %w", errUsage, err)
			}
			cfg.Rules = rules
		}
		if *verdicts {
			cfg.Verdicts = &watch.VerdictConfig{Name: *vname}
			if *policyPath != "" {
				p, b, err := watch.LoadPolicy(*policyPath)
				if err != nil {
					return fmt.Errorf("%w: %w", errUsage, err)
				}
				cfg.Verdicts.Policy, cfg.Verdicts.PolicyBytes = &p, b
			}
		} else if *policyPath != "" || *vname != "" || *extAuthz != "" {
			return fmt.Errorf("%w: --policy, --verdict-name and --ext-authz go with --verdicts", errUsage)
		}
		cfg.Log = slog.New(slog.NewTextHandler(e.stderr, nil))
		cfg.Reject = func(m fleet.MessageReject) {
			fmt.Fprintf(e.stderr, "%s: rejected: %s\n", evidence.Printable(m.Origin), evidence.PrintableMessage(m.Reason))
		}
		cfg.Batch = func(b watch.Batch) { printBatch(e, b, *asJSON) }
		nc, js, err := fleet.Connect(*url, "cordon watch "+*durable, 0)
		if err != nil {
			return err
		}
		defer nc.Close()
		w, err := watch.New(js, cfg)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		stopAuthz := func() error { return nil }
		if *extAuthz != "" {
			if stopAuthz, err = serveExtAuthz(ctx, e, w, *extAuthz); err != nil {
				return err
			}
		}
		fmt.Fprintf(e.stderr, "watching stream %s as %s (lateness %s); ctrl-c stops\n", *stream, *durable, *lateness)
		err = errors.Join(w.Run(ctx), stopAuthz())
		s := w.Stats()
		if *asJSON {
			jsonEncoder(e.stdout).Encode(s)
			return err
		}
		fmt.Fprintf(e.stdout, "%d events released, %d findings, %d messages published, %d late events, %d replays\n",
			s.Released, s.Findings, s.Published, s.Late, s.Replays)
		return err
	}
}

// printBatch says what a batch changed, one line, when it changed
// anything or replayed.
func printBatch(e *env, b watch.Batch, asJSON bool) {
	if len(b.Created)+len(b.Updated)+len(b.Withdrawn) == 0 && b.Replayed == "" {
		return
	}
	if asJSON {
		jsonEncoder(e.stdout).Encode(b)
		return
	}
	line := fmt.Sprintf("%s  %d events: %d created, %d updated, %d withdrawn", time.Now().UTC().Format(time.TimeOnly),
		b.Released, len(b.Created), len(b.Updated), len(b.Withdrawn))
	if len(b.Created) > 0 {
		line += " (" + strings.Join(b.Created[:min(len(b.Created), 5)], " ") + ")"
	}
	if b.Replayed != "" {
		line += "; replayed: " + b.Replayed
	}
	fmt.Fprintln(e.stdout, evidence.PrintableMessage(line))
}

// serveExtAuthz answers Envoy's ext_authz on addr from w's verdicts until
// the returned stop is called.
func serveExtAuthz(ctx context.Context, e *env, w *watch.Watcher, addr string) (stop func() error, err error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: --ext-authz: %w", errUsage, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- authz.Serve(cctx, lis, authz.New(w), 5*time.Second) }()
	fmt.Fprintf(e.stderr, "answering Envoy ext_authz on %s\n", lis.Addr())
	return func() error {
		cancel()
		return <-done
	}, nil
}
