package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/watch"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cmdReceipts only groups its subcommands.
func cmdReceipts(*env, *cobra.Command) {}

// receiptsFlags are the flags of every receipts command: the bus, whose
// chain, which stream.
type receiptsFlags struct{ url, name, stream *string }

func newReceiptsFlags(fs *pflag.FlagSet) receiptsFlags {
	return receiptsFlags{
		url:    fs.String("nats", "", "the NATS `URL` (default $NATS_URL)"),
		name:   fs.String("watcher", "", "the watcher's `NAME` (its --verdict-name, by default its durable)"),
		stream: fs.String("stream", watch.DefaultReceiptsStream, "the receipts' stream"),
	}
}

// given reports whether the bus (--nats, else $NATS_URL, read into it)
// and the watcher are named.
func (f receiptsFlags) given() bool {
	if *f.url == "" {
		*f.url = os.Getenv("NATS_URL")
	}
	return *f.url != "" && *f.name != ""
}

// cmdReceiptsVerify walks a watcher's chain of verdict receipts.
func cmdReceiptsVerify(e *env, c *cobra.Command) {
	fs := c.Flags()
	rf := newReceiptsFlags(fs)
	name, stream := rf.name, rf.stream
	asJSON := jsonFlag(fs, "the chain's report: receipts, recommendations, breaks, the last hash")
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if !rf.given() {
			fs.Usage()
			return fmt.Errorf("%w: receipts verify needs --nats URL and --watcher NAME", errUsage)
		}
		nc, js, err := fleet.Connect(*rf.url, "cordon receipts verify", 0)
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

// cmdReceiptsFind prints the receipts of a request, a verdict or an agent:
// "why was this action allowed?" answered with the answer that was given.
func cmdReceiptsFind(e *env, c *cobra.Command) {
	fs := c.Flags()
	rf := newReceiptsFlags(fs)
	name, stream := rf.name, rf.stream
	request := fs.String("request", "", "the caller's request `ID` (the request's id, Envoy's x-request-id)")
	verdict := fs.String("verdict", "", "the verdict's `ID` (verdict_id of the reply)")
	agent := fs.String("agent", "", "every receipt of the `AGENT`")
	asJSON := jsonFlag(fs, "each receipt found, one a line (read and encoded again: verify hashes the stored bytes)")
	c.Args = wantArgs(0, "no arguments")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if !rf.given() || *request == "" && *verdict == "" && *agent == "" {
			fs.Usage()
			return fmt.Errorf("%w: receipts find needs --nats URL, --watcher NAME and one of --request, --verdict, --agent", errUsage)
		}
		nc, js, err := fleet.Connect(*rf.url, "cordon receipts find", 0)
		if err != nil {
			return err
		}
		defer nc.Close()
		found, unreadable, err := watch.FindReceipts(cmd.Context(), js, *stream, *name, func(r *watch.Receipt) bool {
			v := &r.Verdict
			return (*request == "" || v.RequestID == *request) && (*verdict == "" || v.VerdictID == *verdict) && (*agent == "" || v.Agent == *agent)
		})
		if err != nil {
			return err
		}
		for _, r := range found {
			if *asJSON {
				if err := jsonEncoder(e.stdout).Encode(r); err != nil {
					return err
				}
				continue
			}
			printReceipt(e, &r)
		}
		if unreadable > 0 {
			// a record that does not read could be the one asked for
			fmt.Fprintf(e.stderr, "cordon: %d line(s) of %s's receipts do not read as a receipt and were not searched: cordon receipts verify names them\n",
				unreadable, evidence.PrintableMessage(*name))
		}
		if len(found) > 0 && !*asJSON {
			// find reads; it does not judge the chain the receipts are in
			fmt.Fprintf(e.stdout, "%d receipt(s); whether the chain holding them is whole: cordon receipts verify --watcher %s\n", len(found), evidence.PrintableMessage(*name))
		}
		if len(found) == 0 {
			return fmt.Errorf("no receipt of %s matches (allows are kept one in sample_allows: docs/verdicts.md)", evidence.PrintableMessage(*name))
		}
		return nil
	}
}

// printReceipt says what one receipt records, every string from the
// evidence made printable.
func printReceipt(e *env, r *watch.Receipt) {
	v := &r.Verdict
	p := evidence.PrintableMessage
	fmt.Fprintf(e.stdout, "receipt %d of %s: %s %s for %s at %s (request %s, verdict %s)\n", r.Seq, p(r.Watcher),
		p(r.Subject), p(strings.ToUpper(v.Recommendation)), p(v.Agent), v.At.UTC().Format(time.RFC3339Nano), p(v.RequestID), p(v.VerdictID))
	fmt.Fprintf(e.stdout, "  watermark %s, %d events; rules %s, policy %s\n", v.Watermark.UTC().Format(time.RFC3339Nano), v.Events,
		p(shortHash(v.RulesHash)), p(shortHash(v.PolicyHash)))
	if len(v.Clauses) > 0 {
		fmt.Fprintf(e.stdout, "  clauses %s; rules %s\n", p(strings.Join(v.Clauses, ", ")), p(strings.Join(v.Rules, ", ")))
	}
	for _, line := range v.Reasons {
		fmt.Fprintf(e.stdout, "  - %s\n", p(line))
	}
	if len(r.Request) > 0 {
		fmt.Fprintf(e.stdout, "  request %s\n", p(string(r.Request)))
	}
}
