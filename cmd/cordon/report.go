package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

const (
	reportArgs     = "--incident DIR [--format md|json|html] [-o FILE] [--no-redact]"
	exportArgs     = "--incident DIR --format timesketch|ocsf|stix [-o FILE] [--no-redact] [QUERY (timesketch)]"
	indicatorsArgs = "--incident DIR [--json] [--no-redact]"
)

func cmdReport(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	format := fs.String("format", "md", "`md`, json or html")
	outPath := fs.StringP("o", "o", "", "write to `FILE` instead of stdout")
	noRedact := noRedactFlag(fs)
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if *dir == "" || len(pos) > 0 {
			fs.Usage()
			return fmt.Errorf("%w: report needs --incident DIR and no other arguments", errUsage)
		}
		switch *format {
		case "md", "json", "html":
		default:
			return fmt.Errorf("%w: --format %q: want md, json or html", errUsage, *format)
		}
		ws, done, err := e.openOrHeld(*dir)
		if err != nil {
			return err
		}
		defer done()
		opts, err := redactionOptions(ctx, ws, *noRedact, "the report")
		if err != nil {
			return err
		}
		r, err := report.Build(ctx, ws, append(opts, report.BuiltBy(cordonVersion(), e.argv))...)
		if err != nil {
			return err
		}
		defer sayRedaction(e, r.Redaction)
		// A Markdown report written to a file gets its pictures beside it, as
		// FILE-killswitch.svg and so on, and shows them as images.
		prefix := ""
		if *format == "md" && *outPath != "" && *outPath != "-" {
			prefix = strings.TrimSuffix(filepath.Base(*outPath), filepath.Ext(*outPath)) + "-"
			for _, pic := range r.Pictures() {
				path := filepath.Join(filepath.Dir(*outPath), prefix+pic.Name)
				if err := writeOut(e, path, func(w io.Writer) error { _, err := io.WriteString(w, pic.SVG); return err }); err != nil {
					return err
				}
			}
		}
		return writeOut(e, *outPath, func(w io.Writer) error {
			switch *format {
			case "json":
				enc := jsonEncoder(w)
				enc.SetIndent("", "  ")
				return enc.Encode(r)
			case "html":
				return r.WriteHTML(w)
			}
			return r.WriteMarkdownPictures(w, prefix)
		})
	}
}

func cmdExport(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	format := fs.String("format", "", "export format: `timesketch` (events as JSONL), ocsf (findings as OCSF Detection Finding JSON lines) or stix (indicators as a STIX 2.1 bundle)")
	outPath := fs.StringP("o", "o", "", "write to `FILE` instead of stdout")
	noRedact := noRedactFlag(fs)
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: export needs --incident DIR", errUsage)
		}
		switch *format {
		case "timesketch", "ocsf", "stix":
		default:
			return fmt.Errorf("%w: --format %q: want timesketch, ocsf or stix", errUsage, *format)
		}
		if *format != "timesketch" && len(pos) > 0 {
			return fmt.Errorf("%w: --format %s exports the whole case; a query selects events for timesketch only", errUsage, *format)
		}
		ws, err := incident.Open(*dir)
		if err != nil {
			return err
		}
		defer ws.Close()
		opts, err := redactionOptions(ctx, ws, *noRedact, "the "+*format+" export")
		if err != nil {
			return err
		}
		// OCSF's product version and the STIX identity say what wrote them
		opts = append(opts, report.BuiltBy(cordonVersion(), e.argv))
		n, what := 0, "events"
		var red report.Redaction
		err = writeOut(e, *outPath, func(w io.Writer) error {
			var err error
			switch *format {
			case "ocsf":
				what = "findings"
				n, red, err = report.OCSF(ctx, ws, filepath.Base(ws.Dir), w, opts...)
			case "stix":
				what = "STIX objects"
				var b report.STIXObject
				if b, red, err = report.STIX(ctx, ws, time.Now(), opts...); err == nil {
					n = len(b["objects"].([]report.STIXObject))
					err = report.WriteSTIX(w, b)
				}
			default:
				var q evidence.Query
				if q, err = readQuery(e, strings.Join(pos, " "), ws.Counts()); err != nil {
					return err
				}
				n, red, err = report.Timesketch(ctx, ws, q, w, opts...)
			}
			return err
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "%d %s exported\n", n, what)
		sayRedaction(e, red)
		return nil
	}
}

// noRedactFlag adds --no-redact to an output's flags.
func noRedactFlag(fs *pflag.FlagSet) *bool {
	return fs.Bool("no-redact", false, "show the secrets the evidence holds instead of [SECRET-…] placeholders (journaled)")
}

// redactionOptions are the report options for an output: redacted, or,
// with --no-redact, unredacted once the journal records who asked for
// what. An output that shows the secrets is never written unrecorded.
func redactionOptions(ctx context.Context, ws *incident.Workspace, noRedact bool, what string) ([]report.Option, error) {
	if !noRedact {
		return nil, nil
	}
	actor := journal.CurrentActor(journal.ViaCLI)
	if _, err := ws.RecordUnredacted(ctx, actor, what); err != nil {
		return nil, fmt.Errorf("--no-redact is journaled, and the journal refused: %w", err)
	}
	return []report.Option{report.Unredacted()}, nil
}

// sayRedaction tells the responder on stderr what the output hides or
// shows.
func sayRedaction(e *env, r report.Redaction) {
	switch {
	case r.Off:
		fmt.Fprintln(e.stderr, "cordon: written unredacted (journaled): the output shows the secrets the evidence holds")
	case r.Secrets > 0:
		fmt.Fprintf(e.stderr, "cordon: %s; --no-redact shows them (and is journaled)\n", r.Line())
	}
}

// cmdIndicators prints the indicator register: destinations, addresses,
// credential ids, credential files, processes, schedules and jobs, with
// first and last sighting, agents, evidence and the findings naming them.
func cmdIndicators(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one JSON object per indicator")
	noRedact := noRedactFlag(fs)
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: indicators needs --incident DIR", errUsage)
		}
		ws, err := incident.Open(*dir)
		if err != nil {
			return err
		}
		defer ws.Close()
		opts, err := redactionOptions(ctx, ws, *noRedact, "the indicator register")
		if err != nil {
			return err
		}
		ins, red, err := report.RedactedIndicators(ctx, ws, opts...)
		if err != nil {
			return err
		}
		defer sayRedaction(e, red)
		if *asJSON {
			enc := jsonEncoder(e.stdout)
			for _, in := range ins {
				if err := enc.Encode(in); err != nil {
					return err
				}
			}
			return nil
		}
		if width := e.width(); width > 0 {
			writeIndicatorsTable(e.stdout, width, ins)
			if len(ins) == 0 {
				fmt.Fprintln(e.stderr, "no indicators")
			}
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tVALUE\tORIGIN\tAGENTS\tFIRST\tLAST\tUSES\tFINDINGS\tEVIDENCE")
		for _, in := range ins {
			ev := strings.Join(in.Events[:min(3, len(in.Events))], " ")
			if len(in.Events) > 3 {
				ev += fmt.Sprintf(" (+%d)", len(in.Events)-3)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", in.Kind, evidence.Printable(in.Value), in.Origin,
				evidence.Printable(strings.Join(in.Agents, ",")), stamp(in.First), stamp(in.Last), in.Uses, len(in.Findings), ev)
		}
		tw.Flush()
		if len(ins) == 0 {
			fmt.Fprintln(e.stderr, "no indicators")
		}
		return nil
	}
}

// writeOut writes to stdout, or to path through a temporary file renamed
// into place once complete: a failed report never leaves half a file.
func writeOut(e *env, path string, write func(io.Writer) error) error {
	if path == "" || path == "-" {
		return write(e.stdout)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".cordon-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	// on disk before it takes the name: a full disk fails here, not later
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
