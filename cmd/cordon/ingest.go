package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func cmdIngest(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR` (created if missing)")
	format := fs.String("format", "", "read every input as `FORMAT` instead of sniffing (see cordon formats)")
	quiet := fs.Bool("quiet", false, "no progress line")
	follow := fs.Bool("follow", false, "keep reading what is appended to the inputs (and survive log rotation) until interrupted")
	rebuild := fs.Bool("rebuild", false, "discard the index and ingest every known source again (after a cordon upgrade)")
	detectAfter := fs.Bool("detect", true, "run the detectors once the evidence is in and keep their result with the case, for every later command (--detect=false leaves it to the first reader)")
	store := fs.String("store", "", "keep the events in `victorialogs://host:port[,host:port]` instead of the index in the folder (recorded with the case; docs/victorialogs.md)")
	shared := allowSharedFlag(fs)
	asJSON := jsonFlag(fs, "one JSON object per input file")
	c.RunE = func(cmd *cobra.Command, inputs []string) error {
		ctx := cmd.Context()
		var err error
		if *dir == "" || len(inputs) == 0 && !*rebuild {
			fs.Usage()
			return fmt.Errorf("%w: ingest needs --incident DIR and at least one input", errUsage)
		}
		// before the workspace is created or locked
		if err := checkInputs(*format, inputs); err != nil {
			return err
		}
		if err := incident.CheckStore(*store); err != nil {
			return fmt.Errorf("%w: --store: %v", errUsage, err)
		}
		var ws *incident.Workspace
		if *rebuild {
			var known []string
			ws, known, err = incident.Rebuild(*dir, incident.AllowShared(shared()), incident.Store(*store))
			inputs = append(known, inputs...)
		} else {
			ws, err = incident.Create(*dir, incident.AllowShared(shared()), incident.Store(*store))
		}
		if err != nil {
			return err
		}
		defer ws.Close()
		opt := incident.IngestOptions{Format: *format, Stdin: e.stdin}
		if isTerminal(e.stderr) && !*quiet {
			opt.Progress = func(p ingest.Progress) { printProgress(e.stderr, p) }
		}
		if *follow {
			fmt.Fprintln(e.stderr, "following; ctrl-c stops")
			opt.Progress = nil
			// the detectors answer before the round is reported (a console
			// reloads its findings then); said after the round's files
			var said func()
			if *detectAfter {
				opt.Detectors = func(r incident.LiveRound, err error) {
					said = func() { printLiveRound(e, r, err, *quiet || *asJSON) }
				}
			}
			// a round's journal entry failing after its round was said is
			// said with the next round, or as the follow ends
			defer func() {
				if said != nil {
					said()
				}
			}()
			return ws.Follow(ctx, inputs, opt, 500*time.Millisecond, func(res []ingest.FileResult) {
				var news []ingest.FileResult
				for _, r := range res {
					if r.New > 0 || r.Rejects > 0 || r.Err != nil {
						news = append(news, r)
					}
				}
				printResults(e.stdout, news, *asJSON)
				if said != nil {
					said()
					said = nil
				}
			})
		}
		results, err := ws.Ingest(ctx, inputs, opt)
		printResults(e.stdout, results, *asJSON)
		if errors.Is(err, evidence.ErrWrite) {
			return fmt.Errorf("%w; free space in %s (or make it writable) and run the same ingest again: it resumes after the stored events, without duplicates", err, *dir)
		}
		if ctx.Err() != nil {
			// what the run made of its cancelled context says less than this
			return fmt.Errorf("ingest interrupted: every batch indexed before it is kept; run the same command again to resume after it")
		}
		if err != nil {
			return err
		}
		// an input not read, or read in part, fails the command, but what
		// the others stored reaches the findings first
		var inputErr error
		stored := 0
		for _, r := range results {
			stored += r.New
			switch {
			case r.Err == nil || inputErr != nil:
			case r.Partial():
				inputErr = fmt.Errorf("some inputs were read only in part: %w", r.Err)
			default:
				inputErr = fmt.Errorf("some inputs were not ingested: %w", r.Err)
			}
		}
		if *detectAfter && (inputErr == nil || stored > 0) {
			if err := detectNow(ctx, e, ws, *quiet || *asJSON); err != nil {
				return err
			}
		}
		if inputErr != nil {
			return inputErr
		}
		return noEvents(results, *dir)
	}
}

// checkInputs refuses a --format cordon does not know, and among the
// inputs a FIFO, a device or a file that is not there, before anything is
// opened, created or locked.
func checkInputs(format string, inputs []string) error {
	if format != "" {
		if _, err := ingest.ByFormat(format); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	_, err := ingest.Expand(inputs)
	return err
}

// detectNow runs the detectors over what the ingest stored and keeps the
// result with the case (incident's engine/ folder): findings, check,
// subject, the report and the console read it instead of scanning again.
func detectNow(ctx context.Context, e *env, ws *incident.Workspace, quiet bool) error {
	start := time.Now()
	ch, err := ws.Detect(ctx, journal.CurrentActor(journal.ViaCLI))
	if err != nil {
		return fmt.Errorf("the evidence is in; the detectors failed: %w (cordon findings runs them again)", err)
	}
	if !quiet {
		fmt.Fprintf(e.stderr, "detectors: %s in %s, kept with the case%s\n", ch, time.Since(start).Round(time.Millisecond), readFrom(ws))
	}
	return nil
}

// readFrom says what the detectors after an ingest read the events from,
// when they read them: the replay log the ingest wrote, or the index and
// why the ingest wrote no log.
func readFrom(ws *incident.Workspace) string {
	from := ws.ReplayedFrom()
	switch wrote, why := ws.IngestWroteLog(); {
	case from == "":
		return ""
	case from == "the replay log" && wrote:
		return " (the events read from the replay log the ingest wrote)"
	case !wrote && strings.HasPrefix(from, "the index"):
		return " (the events read from the index: the ingest wrote no replay log, as " + why + ")"
	}
	return " (the events read from " + from + ")"
}

// printLiveRound says what a round of a follow changed in the findings,
// and how: events added to the kept pass, or a replay and why, and the
// events held for order.
func printLiveRound(e *env, r incident.LiveRound, err error, quiet bool) {
	if err != nil {
		fmt.Fprintf(e.stderr, "detectors: %v (the evidence is in; cordon findings runs them again)\n", err)
		return
	}
	if quiet || (r.Change.Empty() && r.Replayed == "") {
		return
	}
	how := fmt.Sprintf("%d event(s) added", r.Added)
	if strings.HasPrefix(r.Read, "the index") {
		// the ingest's hand is the usual way; the index is said
		how += ", read back from " + r.Read
	}
	if r.Replayed != "" {
		how = "replayed " + strconv.Itoa(r.Added) + " events: " + r.Replayed
	}
	if r.Held > 0 {
		how += fmt.Sprintf("; %d held for order, until %s goes past them", r.Held, r.HeldFor)
	}
	fmt.Fprintf(e.stderr, "detectors: %s in %s (%s)\n", r.Change, r.Took.Round(time.Millisecond), evidence.Printable(how))
}

// noEvents fails an ingest in which an input that is not empty gave no
// event: what it held is in no view, and exit 0 would say it was read.
func noEvents(results []ingest.FileResult, dir string) error {
	var empty []string
	for _, r := range results {
		if r.NoEvents != "" {
			empty = append(empty, evidence.Printable(r.Path))
		}
	}
	if len(empty) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; check the file, or name its format with --format (cordon formats), and list what was rejected with cordon rejects --incident %s",
		ingest.ErrNoEvents, strings.Join(empty, ", "), evidence.Printable(dir))
}

func printProgress(w io.Writer, p ingest.Progress) {
	secs := p.Elapsed.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(p.Events) / secs
	}
	eta := ""
	if p.Total > 0 && p.Bytes > 0 && !p.Done {
		left := time.Duration(float64(p.Elapsed) * float64(p.Total-p.Bytes) / float64(p.Bytes))
		eta = "  ETA " + left.Round(time.Second).String()
	}
	fmt.Fprintf(w, "\r\x1b[Kingest: %d/%d files  %d events  %.0f events/s%s", p.FilesDone, p.Files, p.Events, rate, eta)
	if p.Done {
		fmt.Fprintln(w)
	}
}

// jsonFileResult is an input's result as ingest --json writes it.
type jsonFileResult struct {
	ingest.FileResult
	First *time.Time `json:"first,omitempty"`
	Last  *time.Time `json:"last,omitempty"`
	Error string     `json:"error,omitempty"`
}

func printResults(w io.Writer, results []ingest.FileResult, asJSON bool) {
	if asJSON {
		enc := jsonEncoder(w)
		for _, r := range results {
			j := jsonFileResult{FileResult: r}
			if !r.First.IsZero() {
				j.First, j.Last = &r.First, &r.Last
			}
			if r.Err != nil {
				j.Error = r.Err.Error()
			}
			enc.Encode(j)
		}
		return
	}
	for _, r := range results {
		name := evidence.Printable(r.Path)
		if r.Err != nil && !r.Partial() {
			fmt.Fprintf(w, "%s: not ingested: %s\n", name, evidence.PrintableMessage(r.Err.Error()))
			continue
		}
		line := fmt.Sprintf("%s: %s, %d events (%d new), %d rejected", name, r.Format, r.Events, r.New, r.Rejects)
		if r.Stored < r.Events {
			line = fmt.Sprintf("%s: %s, %d events read, only %d stored (%d new), %d rejected", name, r.Format, r.Events, r.Stored, r.New, r.Rejects)
		}
		if r.Routine > 0 {
			// indexed like the rest; the count says what a folded view hides
			line += fmt.Sprintf(", %d tagged routine (tags:routine)", r.Routine)
		}
		if r.Merged > 0 {
			line += fmt.Sprintf(", %d earlier request stages merged into their requests' events", r.Merged)
		}
		if r.ResumedAt > 0 {
			line += fmt.Sprintf(", resumed at byte %d", r.ResumedAt)
		}
		if !r.First.IsZero() {
			line += fmt.Sprintf(", %s – %s", r.First.Format(time.RFC3339), r.Last.Format(time.RFC3339))
		}
		fmt.Fprintln(w, line)
		if r.Err != nil {
			// what it held before the error is kept
			fmt.Fprintf(w, "  read only in part: %s\n", evidence.PrintableMessage(r.Err.Error()))
		}
		if r.NoEvents != "" {
			fmt.Fprintf(w, "  no events from this file: %s\n", evidence.PrintableMessage(r.NoEvents))
		} else if r.Held != nil {
			fmt.Fprintf(w, "  last line at %s (byte %d) left unread: %s\n", evidence.Printable(r.Held.Origin), r.Held.Offset, evidence.PrintableMessage(r.Held.Reason))
		}
		if r.Rejects > 0 {
			fmt.Fprintf(w, "  rejected records are kept in rejects.jsonl; list them with: cordon rejects --incident DIR\n")
		}
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// termWidth is the width of w if it is a terminal, else 0.
func termWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 80
	}
	return width
}

func cmdFormats(e *env, c *cobra.Command) {
	asJSON := jsonFlag(c.Flags(), "one JSON object per format")
	c.RunE = func(*cobra.Command, []string) error {
		for _, p := range ingest.Parsers() {
			if *asJSON {
				if err := jsonEncoder(e.stdout).Encode(map[string]string{"format": p.Format(), "source": p.Source(), "framing": fmt.Sprint(p.Framing())}); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(e.stdout, "%-16s %-7s %s\n", p.Format(), p.Source(), p.Framing())
		}
		return nil
	}
}
