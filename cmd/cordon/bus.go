package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"
)

func cmdBus(*env, *cobra.Command) {}

// cmdBusInit makes the documented bus's three streams, each as its
// account's operator.
func cmdBusInit(e *env, c *cobra.Command) {
	fs := c.Flags()
	urls := map[string]*string{
		"EVIDENCE": fs.String("evidence", "", "the NATS `URL` as the EVIDENCE account's operator (evidence-operator in docs/nats/cordon-bus.conf)"),
		"LEDGER":   fs.String("ledger", "", "the NATS `URL` as the LEDGER account's operator (ledger-operator)"),
		"CORDON":   fs.String("events", "", "the NATS `URL` as the CORDON account's operator (operator)"),
	}
	replicas := fs.Int("replicas", 1, "servers of a cluster that keep each stream (3 to survive the loss of one)")
	asJSON := jsonFlag(fs, "one line per stream: its name, account and whether it was made")
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		streams, err := fleet.BusStreams(*replicas)
		if err != nil {
			return err
		}
		for _, s := range streams {
			if *urls[s.Account] == "" {
				fs.Usage()
				return fmt.Errorf("%w: bus init needs --evidence, --ledger and --events, each as its account's operator", errUsage)
			}
		}
		// the three accounts, each asked of the server before anything
		// is made: the events' stream sources the other two across
		// accounts, and one account holding two of them undoes that
		conns := map[string]jetstream.JetStream{}
		byAccount := map[string]string{}
		for _, s := range streams {
			nc, js, err := fleet.Connect(*urls[s.Account], "cordon bus init", 0)
			if err != nil {
				return err
			}
			defer nc.Close()
			acc, err := fleet.AccountOf(nc)
			if err != nil {
				return err
			}
			if other, ok := byAccount[acc]; ok {
				return fmt.Errorf("%w: the streams of %s and %s would both be in account %s: each needs its own account's operator (docs/nats/cordon-bus.conf)",
					errUsage, other, s.Config.Name, evidence.Printable(acc))
			}
			byAccount[acc], conns[s.Account] = s.Config.Name, js
		}
		for _, s := range streams {
			made, err := fleet.MakeBusStream(cmd.Context(), conns[s.Account], s)
			if err != nil {
				return fmt.Errorf("account %s: %w", s.Account, err)
			}
			if *asJSON {
				if err := jsonEncoder(e.stdout).Encode(map[string]any{"stream": s.Config.Name, "account": s.Account, "made": made}); err != nil {
					return err
				}
				continue
			}
			// only what decides whose records it holds is compared
			what := "there already, its subjects, sources and ledger's stream as documented"
			if made {
				what = "made"
			}
			fmt.Fprintf(e.stdout, "%-16s account %-8s %s\n", s.Config.Name, s.Account, what)
		}
		return nil
	}
}

// cmdBusCheck says how the events' stream takes its events and whose
// records count as the gateway's ledger.
func cmdBusCheck(e *env, c *cobra.Command) {
	fs := c.Flags()
	url := fs.String("nats", "", "the NATS `URL` (default $NATS_URL), as any user who may read the stream's info")
	stream := fs.String("stream", fleet.DefaultStream, "the events' stream")
	asJSON := jsonFlag(fs, "the stream's report")
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if *url == "" {
			*url = os.Getenv("NATS_URL")
		}
		if *url == "" {
			fs.Usage()
			return fmt.Errorf("%w: bus check needs --nats URL (or $NATS_URL)", errUsage)
		}
		nc, js, err := fleet.Connect(*url, "cordon bus check", 0)
		if err != nil {
			return err
		}
		defer nc.Close()
		rep, err := fleet.CheckBus(cmd.Context(), js, *stream)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := jsonEncoder(e.stdout).Encode(rep); err != nil {
				return err
			}
		} else {
			printBus(e, rep)
		}
		if rep.LedgerErr != "" {
			return fmt.Errorf("%s", rep.LedgerErr)
		}
		return nil
	}
}

func printBus(e *env, rep fleet.BusReport) {
	takes := "takes no subject of its own"
	if len(rep.Subjects) > 0 {
		takes = "takes " + strings.Join(rep.Subjects, ", ")
	}
	fmt.Fprintf(e.stdout, "stream %s: %d messages, %s\n", evidence.Printable(rep.Stream), rep.Messages, takes)
	for _, s := range rep.Sources {
		// the server's lag is only known once it has heard from the source
		state := "never heard from, how far behind not known"
		if s.Active >= 0 {
			state = fmt.Sprintf("%d behind, heard from %s ago", s.Lag, s.Active.Round(time.Millisecond))
		}
		fmt.Fprintf(e.stdout, "  source %s: %s", evidence.Printable(s.Name), state)
		if s.Error != "" {
			fmt.Fprintf(e.stdout, ", error: %s", evidence.PrintableMessage(s.Error))
		}
		fmt.Fprintln(e.stdout)
	}
	switch {
	case rep.LedgerErr != "":
		fmt.Fprintln(e.stdout, "ledger records: refused by every reader (below)")
	case rep.Ledger != "":
		fmt.Fprintf(e.stdout, "ledger records: taken only from messages sourced from %s\n", evidence.Printable(rep.Ledger))
	default:
		fmt.Fprintf(e.stdout, "ledger records: by their subject alone: whoever may publish on %s, or make the server publish there, writes the gateway's session ends (docs/fleet.md, \"Security of the bus\")\n",
			fleet.EventSubject(evidence.SourceLedger, evidence.LedgerFormat))
	}
}
