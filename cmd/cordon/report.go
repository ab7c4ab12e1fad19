package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/report"
)

const (
	reportArgs = "--incident DIR [--format md|json|html] [-o FILE]"
	exportArgs = "--incident DIR --format timesketch [-o FILE] [QUERY]"
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
	format := fs.String("format", "", "export format: `timesketch` (JSONL)")
	outPath := fs.String("o", "", "write to `FILE` instead of stdout")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if *dir == "" {
		fs.Usage()
		return fmt.Errorf("%w: export needs --incident DIR", errUsage)
	}
	if *format != "timesketch" {
		return fmt.Errorf("%w: --format %q: want timesketch", errUsage, *format)
	}
	ws, err := incident.Open(*dir)
	if err != nil {
		return err
	}
	defer ws.Close()
	n := 0
	err = writeOut(e, *outPath, func(w io.Writer) error {
		var err error
		n, err = report.Timesketch(ctx, ws.Store, strings.Join(pos, " "), w)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%d events exported\n", n)
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
