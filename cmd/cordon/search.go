package main

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/spf13/cobra"
)

func cmdSearch(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "one event per line as JSON, with raw and origin")
	since := fs.String("since", "", "only events at or after `T` (RFC 3339, or a duration like 2h before the main span's last event)")
	until := fs.String("until", "", "only events before `T`")
	limit := fs.Int("limit", 50, "at most `N` events")
	order := fs.String("sort", "time", "time, -time or score")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: search needs --incident DIR", errUsage)
		}
		if err := atLeastOne("--limit", *limit); err != nil {
			return err
		}
		ws, done, err := e.openOrHeld(*dir)
		if err != nil {
			return err
		}
		defer done()
		q, err := readQuery(e, strings.Join(pos, " "), ws.Counts())
		if err != nil {
			return err
		}
		req := evidence.Request{Query: q, Limit: *limit, Sort: *order}
		// "30m" counts back from the main span's end, not from a record
		// dated 9999-12-31
		sp, err := ws.MainSpan(ctx)
		if err != nil {
			return err
		}
		last := sp.Last
		if req.Since, err = parseTime(*since, last); err != nil {
			return err
		}
		if req.Until, err = parseTime(*until, last); err != nil {
			return err
		}
		hits, err := ws.Search(ctx, req)
		if err != nil {
			return err
		}
		if *asJSON {
			enc := jsonEncoder(e.stdout)
			for _, ev := range hits.Events {
				if err := enc.Encode(newJSONEvent(ev)); err != nil {
					return err
				}
			}
			return nil
		}
		writeTable(e.stdout, e.width(), hits.Events)
		fmt.Fprintf(e.stderr, "%d of %d events (%s)\n", len(hits.Events), hits.Total, hits.Took.Round(time.Microsecond))
		return nil
	}
}

// atLeastOne refuses a count flag of zero or less: --limit 0 would
// otherwise print nothing, or everything, and neither is what was asked.
func atLeastOne(flag string, n int) error {
	if n < 1 {
		return fmt.Errorf("%w: %s %d: want 1 or more", errUsage, flag, n)
	}
	return nil
}

// parseTime reads RFC 3339 (or a date), or a Go duration counted back from
// last, the main span's last event.
func parseTime(s string, last time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return last.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%w: bad time %q (want RFC 3339 like 2026-07-21T10:04:00Z, or a duration like 30m)", errUsage, s)
}

func cmdStats(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	by := fs.String("by", "", "count per value of `FIELD` (e.g. agent, kind, dst_host)")
	asJSON := fs.Bool("json", false, "JSON output")
	top := fs.Int("top", 20, "show the `N` most frequent values")
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		ctx := cmd.Context()
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: stats needs --incident DIR", errUsage)
		}
		if err := atLeastOne("--top", *top); err != nil {
			return err
		}
		ws, done, err := e.openOrHeld(*dir)
		if err != nil {
			return err
		}
		defer done()
		c := ws.Counts()
		sp, err := ws.MainSpan(ctx)
		if err != nil {
			return err
		}
		fields := []string{"source", "format", "kind", "agent", "decision"}
		if *by != "" {
			fields = []string{*by}
		}
		out := map[string][]evidence.Count{}
		for _, f := range fields {
			counts, err := ws.Facet(context.Background(), evidence.All(), time.Time{}, time.Time{}, f, *top)
			if err != nil {
				return fmt.Errorf("%w: %v (countable fields: %s)", errUsage, err, strings.Join(evidence.FacetFields(), ", "))
			}
			out[f] = counts
		}
		rejects, _ := ws.Rejects()
		if *asJSON {
			doc := map[string]any{
				"events": c.Total, "first": c.First, "last": c.Last, "rejects": len(rejects), "by": out,
			}
			if sp.Outside() > 0 {
				doc["main_span"] = map[string]any{"first": sp.First, "last": sp.Last}
				doc["outside"] = map[string]any{"before": sp.Before, "after": sp.After, "query": sp.Query().String()}
			}
			return jsonEncoder(e.stdout).Encode(doc)
		}
		fmt.Fprintf(e.stdout, "events   %d\n", c.Total)
		if c.Total > 0 {
			fmt.Fprintf(e.stdout, "span     %s – %s (%s)\n", sp.First.Format(time.RFC3339), sp.Last.Format(time.RFC3339), spanLength(sp.First, sp.Last))
		}
		if line := sp.OutsideLine(); line != "" {
			writeWrapped(e.stdout, e.width(), "         ", fmt.Sprintf("outside  %s: cordon search --incident %s '%s'", line, *dir, sp.Query()))
		}
		fmt.Fprintf(e.stdout, "rejects  %d\n", len(rejects))
		if *by == "" {
			fmt.Fprintln(e.stdout, "\nattribution")
			if err := printCoverage(context.Background(), e, ws); err != nil {
				return err
			}
		}
		keys := make([]string, 0, len(out))
		for k := range out {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return indexOf(fields, keys[i]) < indexOf(fields, keys[j]) })
		for _, f := range keys {
			fmt.Fprintf(e.stdout, "\nby %s\n", f)
			if len(out[f]) == 0 {
				fmt.Fprintln(e.stdout, "  (no values)")
			}
			for _, v := range out[f] {
				writeWrapped(e.stdout, e.width(), strings.Repeat(" ", 12), fmt.Sprintf("  %8d  %s", v.Count, evidence.Printable(v.Value)))
			}
		}
		return nil
	}
}

// spanLength is last - first to the second, in days past what a Duration
// holds (292 years): a span can run from the year 1 to 9999.
func spanLength(first, last time.Time) string {
	if d := last.Sub(first); d < 100*365*24*time.Hour {
		return d.Round(time.Second).String()
	}
	return fmt.Sprintf("%d days", (last.Unix()-first.Unix())/86400)
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return len(xs)
}

func cmdShow(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "JSON output")
	c.RunE = func(cmd *cobra.Command, pos []string) error {
		ctx := cmd.Context()
		if *dir == "" || len(pos) != 1 {
			fs.Usage()
			return fmt.Errorf("%w: show needs --incident DIR and one event id", errUsage)
		}
		ws, done, err := e.openOrHeld(*dir)
		if err != nil {
			return err
		}
		defer done()
		ev, err := ws.Get(ctx, pos[0])
		if err != nil {
			return err
		}
		if *asJSON {
			return jsonEncoder(e.stdout).Encode(newJSONEvent(ev))
		}
		writeEvent(e.stdout, ev)
		return nil
	}
}

// jsonEvent is an event as --json writes it. JSON strings are UTF-8: a
// raw record that is not (a log line with Latin-1 or binary bytes) comes
// out of the encoder with U+FFFD in place of its bad bytes, so RawB64
// carries the record's exact bytes beside it.
type jsonEvent struct {
	evidence.Event
	RawB64 string `json:"raw_b64,omitempty"`
}

func newJSONEvent(ev evidence.Event) jsonEvent {
	j := jsonEvent{Event: ev}
	if !utf8.ValidString(ev.Raw) {
		j.RawB64 = base64.StdEncoding.EncodeToString([]byte(ev.Raw))
	}
	return j
}

func cmdRejects(e *env, c *cobra.Command) {
	fs := c.Flags()
	dir := fs.String("incident", "", "incident workspace `DIR`")
	asJSON := fs.Bool("json", false, "JSON lines output")
	c.RunE = func(_ *cobra.Command, _ []string) error {
		if *dir == "" {
			fs.Usage()
			return fmt.Errorf("%w: rejects needs --incident DIR", errUsage)
		}
		ws, err := incident.Open(*dir)
		if err != nil {
			return err
		}
		defer ws.Close()
		rs, err := ws.Rejects()
		if err != nil {
			return err
		}
		enc := jsonEncoder(e.stdout)
		for _, r := range rs {
			if *asJSON {
				if err := enc.Encode(r); err != nil {
					return err
				}
				continue
			}
			data := r.Data
			if len(data) > 120 {
				data = data[:120] + "…"
			}
			// the reason wraps; the record's start is a glimpse (--json
			// has it whole), cut to the terminal
			w := e.width()
			writeWrapped(e.stdout, w, "    ", fmt.Sprintf("%s  [%s] %s", evidence.Printable(r.Origin), r.Format, evidence.PrintableMessage(r.Reason)))
			line := "    " + evidence.Printable(data)
			if w > 0 {
				line = fit(line, w)
			}
			fmt.Fprintln(e.stdout, line)
		}
		fmt.Fprintf(e.stderr, "%d rejected records\n", len(rs))
		return nil
	}
}
