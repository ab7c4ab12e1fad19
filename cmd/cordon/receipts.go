package main

import (
	"fmt"
	"os"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/watch"
	"github.com/spf13/cobra"
)

// cmdReceipts only groups its subcommands.
func cmdReceipts(*env, *cobra.Command) {}

// cmdReceiptsVerify walks a watcher's chain of verdict receipts.
func cmdReceiptsVerify(e *env, c *cobra.Command) {
	fs := c.Flags()
	url := fs.String("nats", "", "the NATS `URL` (default $NATS_URL)")
	name := fs.String("watcher", "", "the watcher's `NAME` (its --verdict-name, by default its durable)")
	stream := fs.String("stream", watch.DefaultReceiptsStream, "the receipts' stream")
	asJSON := jsonFlag(fs, "the chain's report: receipts, recommendations, breaks, the last hash")
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if *url == "" {
			*url = os.Getenv("NATS_URL")
		}
		if *url == "" || *name == "" {
			fs.Usage()
			return fmt.Errorf("%w: receipts verify needs --nats URL and --watcher NAME", errUsage)
		}
		nc, js, err := fleet.Connect(*url, "cordon receipts verify", 0)
		if err != nil {
			return err
		}
		defer nc.Close()
		rep, err := watch.VerifyReceipts(cmd.Context(), js, *stream, *name)
		if err != nil {
			return err
		}
		if *asJSON {
			if err := jsonEncoder(e.stdout).Encode(rep); err != nil {
				return err
			}
		} else {
			for _, b := range rep.Breaks {
				fmt.Fprintf(e.stdout, "stream sequence %d: %s\n", b.StreamSeq, evidence.PrintableMessage(b.Problem))
			}
			fmt.Fprintf(e.stdout, "%d receipts of %s (%d refused, %d reviewed, %d allowed kept, %d allows not sampled), %d breaks; last %s\n",
				rep.Receipts, *name, rep.Refused, rep.Reviewed, rep.Allowed, rep.Skipped, len(rep.Breaks), rep.Last)
			// a chain cut at its end still links: only a hash kept from
			// an earlier verify can show it
			fmt.Fprintln(e.stdout, "receipts removed from the end leave no break: compare the last hash with one kept from an earlier verify")
		}
		if len(rep.Breaks) > 0 {
			return fmt.Errorf("%w: %d break(s) in the receipts of %s", watch.ErrChainBroken, len(rep.Breaks), *name)
		}
		return nil
	}
}
