package main

import (
	"fmt"

	"github.com/cordon-ir/cordon/bench"
	"github.com/spf13/cobra"
)

func cmdBench(e *env, c *cobra.Command) {
	fs := c.Flags()
	events := fs.Int("events", 100_000, "generate and ingest `N` records")
	span := fs.Duration("span", bench.DefaultSpan, "spread the records over `DURATION` (the same span at more records makes every agent busier)")
	dir := fs.String("dir", "", "make the scratch directory under `DIR` (default the system temp dir)")
	keep := fs.Bool("keep", false, "keep the generated evidence and incident")
	queries := fs.Int("queries", 50, "time each query `N` times")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	inc := fs.String("incident", "", "only time the queries, on an incident `DIR` kept by an earlier --keep run")
	cpu := fs.String("cpuprofile", "", "write a CPU profile of the ingest (or of the queries, with --incident) to `FILE`")
	block := fs.String("blockprofile", "", "write a block profile of the same to `FILE`")
	live := fs.Bool("live", false, "also time the console's term, bare-word and page queries once a second while the ingest runs")
	mem := fs.String("memprofile", "", "write a heap profile taken late in the ingest to `FILE`")
	skipFindings := fs.Bool("skip-findings", false, "with --incident, time the queries and the console only, not the whole-incident detectors")
	store := fs.String("store", "", "keep the events in `victorialogs://host:port` instead of the index in the folder")
	c.RunE = func(cmd *cobra.Command, rest []string) error {
		ctx := cmd.Context()
		if len(rest) > 0 || *events <= 0 || *queries <= 0 || *span <= 0 {
			fs.Usage()
			return fmt.Errorf("%w: bench takes only flags, with positive --events, --span and --queries", errUsage)
		}
		cfg := bench.Config{Events: *events, Span: *span, Dir: *dir, Keep: *keep, Queries: *queries, Incident: *inc, SkipFindings: *skipFindings, CPUProfile: *cpu, BlockProfile: *block, MemProfile: *mem, Live: *live, Store: *store}
		cfg.Log = func(s string) { fmt.Fprintln(e.stderr, "bench:", s) }
		res, err := bench.Run(ctx, cfg)
		if err != nil {
			return err
		}
		if *asJSON {
			return bench.WriteJSON(e.stdout, res)
		}
		return bench.WriteTable(e.stdout, res)
	}
}
