package main

import (
	"fmt"
	"io"
	"os"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/spf13/cobra"
)

const shipArgs = "--nats URL [--stream S] [--state FILE] [--format F] [--follow] FILE|DIR|- ..."

// maxShownRejects bounds the rejected records ship lists: a hostile input
// of a million bad lines must not flood the terminal. The count is whole.
const maxShownRejects = 50

func cmdShip(e *env, c *cobra.Command) {
	fs := c.Flags()
	// $NATS_URL is read when the command runs, not shown as the flag's
	// default: it may carry a user and password.
	url := fs.String("nats", "", "the NATS `URL` (nats://host:4222; several, comma-separated, for a cluster; default $NATS_URL)")
	stream := fs.String("stream", fleet.DefaultStream, "the JetStream stream, created (file storage) if missing")
	state := fs.String("state", "", "the checkpoint `FILE` (default $XDG_STATE_HOME/cordon/ship/STREAM-<digest of URL>.json)")
	format := fs.String("format", "", "read every input as `FORMAT` instead of sniffing (see cordon formats)")
	asJSON := fs.Bool("json", false, "each input's result, then the totals, as JSON lines")
	follow := fs.Bool("follow", false, "keep shipping what is appended to the inputs (and survive log rotation) until interrupted")
	inFlight := fs.Int("in-flight", fleet.DefaultInFlight, "events awaiting the server's acknowledgement at most")
	c.RunE = func(cmd *cobra.Command, inputs []string) error {
		ctx := cmd.Context()
		if *url == "" {
			*url = os.Getenv("NATS_URL")
		}
		if *url == "" || len(inputs) == 0 {
			fs.Usage()
			return fmt.Errorf("%w: ship needs --nats URL (or $NATS_URL) and at least one input", errUsage)
		}
		if err := checkInputs(*format, inputs); err != nil {
			return err
		}
		if *state == "" {
			p, err := fleet.DefaultStatePath(*url, *stream)
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			*state = p
		}
		st, err := fleet.OpenState(*state)
		if err != nil {
			return err
		}
		defer st.Close()
		nc, js, err := fleet.Connect(*url, "cordon ship", *inFlight)
		if err != nil {
			return err
		}
		defer nc.Close()
		if _, err := fleet.EnsureStream(ctx, js, fleet.StreamConfig{Name: *stream}); err != nil {
			return err
		}
		rj := &rejectPrinter{w: e.stderr}
		opt := fleet.ShipOptions{Format: *format, Stdin: e.stdin, Reject: rj.print}
		if *follow {
			fmt.Fprintln(e.stderr, "following; ctrl-c stops")
			opt.Follow = true
			opt.Round = func(res []ingest.FileResult) { printShipped(e.stdout, res, true, *asJSON) }
		}
		res, err := fleet.Ship(ctx, fleet.NewPublisher(js, *inFlight), st, inputs, opt)
		if !*follow {
			printShipped(e.stdout, res.Files, false, *asJSON)
		}
		rj.summary()
		if *asJSON {
			jsonEncoder(e.stdout).Encode(shipTotals{Stream: *stream, Sent: res.Acked, Read: res.Read, Duplicates: res.Duplicates, Rejected: res.Rejects, Oversize: res.Oversize})
		} else {
			fmt.Fprintf(e.stdout, "sent %d of %d events to stream %s", res.Acked, res.Read, *stream)
			if res.Duplicates > 0 {
				fmt.Fprintf(e.stdout, " (%d of them were on it already)", res.Duplicates)
			}
			fmt.Fprintf(e.stdout, ", %d rejected\n", res.Rejects)
		}
		if ctx.Err() != nil && !*follow {
			return fmt.Errorf("ship interrupted: every acknowledged batch is checkpointed in %s; run the same command again to resume after it", evidence.Printable(*state))
		}
		if err != nil {
			return hintError{err: fmt.Errorf("ship stopped: %w", err),
				hint: fmt.Sprintf("checkpoints in %s cover what the server acknowledged; run the same command again to resume (what it sends again, the stream or its readers drop)", evidence.Printable(*state))}
		}
		for _, r := range res.Files {
			if r.Err != nil {
				return fmt.Errorf("some inputs were not shipped: %w", r.Err)
			}
		}
		return nil
	}
}

// shipTotals is ship's last line as JSON: Sent of Read acknowledged.
type shipTotals struct {
	Stream     string `json:"stream"`
	Sent       int64  `json:"sent"`
	Read       int64  `json:"read"`
	Duplicates int64  `json:"duplicates"`
	Rejected   int64  `json:"rejected"`
	Oversize   int64  `json:"oversize"`
}

// printShipped says what each input gave; in a follow, only the inputs
// that gave something this round.
func printShipped(w io.Writer, res []ingest.FileResult, changedOnly, asJSON bool) {
	var shown []ingest.FileResult
	for _, r := range res {
		if !changedOnly || r.Events > 0 || r.Rejects > 0 || r.Err != nil {
			shown = append(shown, r)
		}
	}
	if asJSON {
		printResults(w, shown, true)
		return
	}
	for _, r := range shown {
		name := evidence.Printable(r.Path)
		if r.Err != nil {
			fmt.Fprintf(w, "%s: not shipped: %s\n", name, evidence.PrintableMessage(r.Err.Error()))
			continue
		}
		line := fmt.Sprintf("%s: %s, %d events read, %d rejected", name, r.Format, r.Events, r.Rejects)
		if r.ResumedAt > 0 {
			line += fmt.Sprintf(", resumed at byte %d", r.ResumedAt)
		}
		fmt.Fprintln(w, line)
		if r.Held != nil {
			fmt.Fprintf(w, "  last line at %s (byte %d) left unread: %s\n", evidence.Printable(r.Held.Origin), r.Held.Offset, evidence.PrintableMessage(r.Held.Reason))
		}
	}
}

// rejectPrinter lists rejected records as file:line: reason, the first
// maxShownRejects of them.
type rejectPrinter struct {
	w io.Writer
	n int
}

func (p *rejectPrinter) print(r parse.Reject) {
	p.n++
	if p.n > maxShownRejects {
		return
	}
	fmt.Fprintf(p.w, "%s: rejected (%s): %s\n", evidence.Printable(r.Origin), evidence.Printable(r.Format),
		evidence.PrintableMessage(parse.CutText(parse.OneLine(r.Reason), 300)))
}

func (p *rejectPrinter) summary() {
	if p.n > maxShownRejects {
		fmt.Fprintf(p.w, "... and %d more rejected records not listed\n", p.n-maxShownRejects)
	}
}

// messageRejects lists the messages a stream reader rejected, as origin:
// reason, the first maxShownRejects of them.
type messageRejects struct {
	w io.Writer
	n int
}

func (p *messageRejects) print(m fleet.MessageReject) {
	if p.n++; p.n <= maxShownRejects {
		fmt.Fprintf(p.w, "%s: rejected: %s\n", evidence.Printable(m.Origin), evidence.PrintableMessage(m.Reason))
	}
}

func (p *messageRejects) summary() {
	if p.n > maxShownRejects {
		fmt.Fprintf(p.w, "... and %d more rejected messages not listed\n", p.n-maxShownRejects)
	}
}
