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
	"github.com/cordon-ir/cordon/report"
)

const (
	reportArgs     = "--incident DIR [--format md|json|html] [-o FILE]"
	exportArgs     = "--incident DIR --format timesketch|ocsf|stix [-o FILE] [QUERY (timesketch)]"
	indicatorsArgs = "--incident DIR [--json]"
)

func cmdReport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "report", reportArgs)
	dir := fs.String("incident", "", "incident workspace `DIR`")
	format := fs.String("format", "md", "`md`, json or html")
	outPath := fs.String("o", "", "write to `FILE` instead of stdout")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *dir == "" || len(pos) > 0 {
		fs.Usage()
		return fmt.Errorf("%w: report needs --incident DIR and no other arguments", errUsage)
	}
	switch *format {
	case "md", "json", "html":
	default:
		return fmt.Errorf("%w: --format %q: want md, json or html", errUsage, *format)
	}
	ws, done, err := e.openIncident(*dir)
	if err != nil {
		return err
	}
	defer done()
	r, err := report.Build(ctx, ws)
	if err != nil {
		return err
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
		return r.WriteMarkdown(w)
	})
}

func cmdExport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "export", exportArgs)
	dir := fs.String("incident", "", "incident workspace `DIR`")
	format := fs.String("format", "", "export format: `timesketch` (events as JSONL), ocsf (findings as OCSF Detection Finding JSON lines) or stix (indicators as a STIX 2.1 bundle)")
	outPath := fs.String("o", "", "write to `FILE` instead of stdout")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
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
	n, what := 0, "events"
	err = writeOut(e, *outPath, func(w io.Writer) error {
		var err error
		switch *format {
		case "ocsf":
			what = "findings"
			n, err = report.OCSF(ctx, ws, filepath.Base(ws.Dir), w)
		case "stix":
			what = "STIX objects"
			var b report.STIXObject
			if b, err = report.STIX(ctx, ws, time.Now()); err == nil {
				n = len(b["objects"].([]report.STIXObject))
				err = report.WriteSTIX(w, b)
			}
		default:
			n, err = report.Timesketch(ctx, ws, strings.Join(pos, " "), w)
		}
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%d %s exported\n", n, what)
	return nil
}

// cmdIndicators prints the indicator register: destinations, addresses,
// credential ids, credential files, processes, schedules and jobs, with
// first and last sighting, agents, evidence and the findings naming them.
func cmdIndicators(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "indicators", indicatorsArgs)
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one JSON object per indicator")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return fmt.Errorf("%w: indicators needs --incident DIR", errUsage)
	}
	ws, err := incident.Open(*dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	ins, err := report.Indicators(ctx, ws)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := jsonEncoder(e.stdout)
		for _, in := range ins {
			if err := enc.Encode(in); err != nil {
				return err
			}
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
