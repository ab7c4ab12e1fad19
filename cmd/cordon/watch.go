package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/authz"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/watch"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"
)

const watchArgs = "--nats URL [--stream S] [--durable NAME] [--partitions N] [--worker NAME] [--lease D] [--replicas N] [--rules FILE|DIR] [--lateness D] [--idle D] [--raw-route SUBJECT=FORMAT]... [--verdicts [--verdict-name NAME] [--policy FILE] [--ext-authz ADDR [--ext-authz-cert FILE --ext-authz-key FILE [--ext-authz-client-ca FILE]]]] | --status [--durable NAME]"

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
	partitions := fs.Int("partitions", 1, "cut the agents into `N` partitions that the workers of the group (same --durable) share; the same N for every worker")
	worker := fs.String("worker", "", "this worker's `NAME` in the group (default: host name and process id)")
	lease := fs.Duration("lease", watch.DefaultLease, "a worker not heard of for this long loses its partitions to the others")
	replicas := fs.Int("replicas", 1, "servers of a cluster that keep the findings stream and the buckets the watchers create (3 to survive the loss of one)")
	status := fs.Bool("status", false, "print each worker of the group: its partitions, lag, events/s and findings/s, then stop")
	extAuthz := fs.String("ext-authz", "", "also answer Envoy's ext_authz v3 (gRPC) on `ADDR` (host:port) from the same verdicts (docs/verdicts.md)")
	var authzTLS authz.TLS
	fs.StringVar(&authzTLS.CertFile, "ext-authz-cert", "", "with --ext-authz: serve TLS with this certificate `FILE` (PEM)")
	fs.StringVar(&authzTLS.KeyFile, "ext-authz-key", "", "with --ext-authz: the certificate's private key `FILE` (PEM)")
	fs.StringVar(&authzTLS.ClientCAFile, "ext-authz-client-ca", "", "with --ext-authz: mutual TLS: accept only gateways whose client certificate this CA bundle `FILE` (PEM) signed")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *url == "" {
			*url = os.Getenv("NATS_URL")
		}
		if *url == "" {
			fs.Usage()
			return fmt.Errorf("%w: watch needs --nats URL (or $NATS_URL)", errUsage)
		}
		if *status {
			return printGroup(e, *url, *durable, *asJSON)
		}
		if *partitions < 1 {
			return fmt.Errorf("%w: --partitions %d, want 1 or more", errUsage, *partitions)
		}
		if *worker == "" {
			*worker = defaultWorker()
		}
		cfg := watch.Config{Stream: *stream, Durable: *durable, Lateness: *lateness, Idle: *idle, Replicas: *replicas}
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
		if *extAuthz == "" && !authzTLS.Plaintext() {
			return fmt.Errorf("%w: --ext-authz-cert, --ext-authz-key and --ext-authz-client-ca go with --ext-authz", errUsage)
		}
		tlsConf, err := authzTLS.Config()
		if err != nil {
			return fmt.Errorf("%w: --ext-authz: %v", errUsage, err)
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
		if ledger, err := fleet.LedgerStreamOf(ctx, js, *stream); err != nil {
			return err
		} else if ledger != "" {
			fmt.Fprintf(e.stderr, "records in the ledger's format are taken only from stream %s, as stream %s names it\n", ledger, *stream)
		} else {
			fmt.Fprintf(e.stderr, "records in the ledger's format count as the gateway's by their subject alone: stream %s names no ledger's stream (docs/fleet.md, \"Security of the bus\")\n", *stream)
		}
		if cfg.Verdicts != nil {
			if *partitions != 1 {
				return fmt.Errorf("%w: --verdicts are answered by one watcher of every agent, not by partitions", errUsage)
			}
			return runOneWatcher(ctx, e, js, cfg, *extAuthz, tlsConf, *asJSON)
		}
		var last watch.WorkerStatus
		wcfg := watch.WorkerConfig{Config: cfg, Worker: *worker, Partitions: *partitions, Lease: *lease,
			Status: func(s watch.WorkerStatus) { last = s }}
		fmt.Fprintf(e.stderr, "watching stream %s as worker %s of %s (%d partition(s), lateness %s); ctrl-c stops\n",
			*stream, evidence.Printable(*worker), *durable, *partitions, *lateness)
		if !watch.ValidName(*worker) {
			return fmt.Errorf("%w: --worker %q: want letters, digits, - and _ only", errUsage, evidence.Printable(*worker))
		}
		if _, err := watch.New(js, cfg); err != nil { // the watchers' settings, checked before any starts
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if err := watch.RunWorker(ctx, js, wcfg); err != nil {
			return err
		}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(last)
		}
		fmt.Fprintf(e.stdout, "%d events released, %d finding messages published\n", last.Events, last.Published)
		return nil
	}
}

// runOneWatcher runs a watcher of every agent that answers verdicts.
// With extAuthz, it answers Envoy's ext_authz there from the same verdicts
// (over TLS with tlsConf, plaintext when nil).
func runOneWatcher(ctx context.Context, e *env, js jetstream.JetStream, cfg watch.Config, extAuthz string, tlsConf *tls.Config, asJSON bool) error {
	w, err := watch.New(js, cfg)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	stopAuthz := func() error { return nil }
	if extAuthz != "" {
		if stopAuthz, err = serveExtAuthz(ctx, e, w, extAuthz, tlsConf); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "watching stream %s as %s (lateness %s); ctrl-c stops\n", cfg.Stream, cfg.Durable, cfg.Lateness)
	err = errors.Join(w.Run(ctx), stopAuthz())
	s := w.Stats()
	if asJSON {
		jsonEncoder(e.stdout).Encode(s)
		return err
	}
	fmt.Fprintf(e.stdout, "%d events released, %d findings, %d messages published, %d late events, %d replays\n",
		s.Released, s.Findings, s.Published, s.Late, s.Replays)
	return err
}

// defaultWorker is the host name and the process id, as a worker name.
func defaultWorker() string {
	host, _ := os.Hostname()
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, host)
	if len(name) > 100 {
		name = name[:100]
	}
	return strings.Trim(name+"-"+strconv.Itoa(os.Getpid()), "-")
}

// printGroup prints the status the group of durable keeps.
func printGroup(e *env, url, durable string, asJSON bool) error {
	nc, js, err := fleet.Connect(url, "cordon watch --status", 0)
	if err != nil {
		return err
	}
	defer nc.Close()
	g, err := watch.ReadGroup(context.Background(), js, durable)
	if err != nil {
		return err
	}
	if asJSON {
		return jsonEncoder(e.stdout).Encode(g)
	}
	if len(g.Workers) == 0 {
		fmt.Fprintf(e.stdout, "no worker of %s heard of\n", evidence.Printable(durable))
	}
	fmt.Fprintf(e.stdout, "%-24s %-12s %10s %10s %12s %10s\n", "WORKER", "PARTITIONS", "LAG", "EVENTS/S", "FINDINGS/S", "AGE")
	for _, w := range g.Workers {
		parts := make([]string, len(w.Partitions))
		for i, p := range w.Partitions {
			parts[i] = strconv.Itoa(p)
		}
		fmt.Fprintf(e.stdout, "%-24s %-12s %10d %10.1f %12.2f %10s\n", evidence.Printable(w.Worker), strings.Join(parts, ","),
			w.Lag, w.EventsPerSec, w.FindingsPerSec, time.Since(w.At).Round(100*time.Millisecond))
	}
	return nil
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
func serveExtAuthz(ctx context.Context, e *env, w *watch.Watcher, addr string, conf *tls.Config) (stop func() error, err error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%w: --ext-authz: %w", errUsage, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- authz.Serve(cctx, lis, authz.New(w), 5*time.Second, conf) }()
	how := "plaintext: keep it on the gateway's own network"
	switch {
	case conf != nil && conf.ClientCAs != nil:
		how = "mutual TLS"
	case conf != nil:
		how = "TLS, any client"
	}
	fmt.Fprintf(e.stderr, "answering Envoy ext_authz on %s (%s)\n", lis.Addr(), how)
	return func() error {
		cancel()
		return <-done
	}, nil
}
