package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// Targets at 1,000,000 events on a 2-core machine (DESIGN.md, Performance).
const (
	TargetEventsPerSec = 20_000
	TargetPeakRSS      = 1 << 30
	// TargetFindingsSeconds bounds the detectors over a million events.
	TargetFindingsSeconds = 10
)

// WriteTable prints a result for people.
func WriteTable(w io.Writer, r *Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "machine\t%d CPUs (GOMAXPROCS %d), %s, load %.2f before / %.2f after, other processes used %.2f cores during ingest\n",
		r.Machine.CPUs, r.Machine.GOMAXPROCS, r.Machine.GoVersion, r.Machine.LoadBefore, r.Machine.LoadAfter, r.Machine.OtherCPU)
	fmt.Fprintf(tw, "input\t%d records, %.1f MiB, %d rejected\n", r.Records, float64(r.InputBytes)/(1<<20), r.Rejects)
	fmt.Fprintf(tw, "ingest\t%d events in %.1f s = %.0f events/s (%.0f µs CPU/event)\t%s\n", r.Events, r.IngestSeconds, r.EventsPerSec,
		1e6*r.IngestCPU/float64(max(1, r.Events)), verdict(r.EventsPerSec >= TargetEventsPerSec, ">= 20000/s"))
	if r.FirstSearchable > 0 {
		fmt.Fprintf(tw, "first answer\t%.2f s from the start of the ingest to the first searchable event\n", r.FirstSearchable)
	}
	fmt.Fprintf(tw, "index\t%.1f MiB, %.0f bytes/event\n", float64(r.IndexBytes)/(1<<20), r.BytesPerEvent)
	if r.PeakRSS > 0 { // 0: queries on a kept incident, no ingest
		fmt.Fprintf(tw, "peak RSS\t%.0f MiB (during ingest, sampled: heap %.0f MiB, mapped index %.0f MiB)\t%s\n", float64(r.PeakRSS)/(1<<20),
			float64(r.PeakAnon)/(1<<20), float64(r.PeakFile)/(1<<20), verdict(r.PeakRSS < TargetPeakRSS, "< 1 GiB"))
	}
	fmt.Fprintf(tw, "peak RSS, run\t%.0f MiB (the whole run; the mapped index pages the detectors read count)\n", float64(r.PeakRSSRun)/(1<<20))
	if r.DetectSeconds > 0 {
		fmt.Fprintf(tw, "detectors\t%d findings kept in %.1f s, %.1f s CPU: %.0f%% of the ingest's CPU, as cordon ingest runs them\t%s\n", r.DetectFindings,
			r.DetectSeconds, r.DetectCPU, 100*r.DetectCPU/max(r.IngestCPU, 1e-9), verdict(r.DetectCPU <= 0.15*r.IngestCPU, "<= 15%"))
	}
	if r.FindingsSeconds > 0 { // 0: left out (--skip-findings)
		fmt.Fprintf(tw, "findings\t%d findings in %.1f s (built-in detectors, whole incident)\t%s\n", r.Findings, r.FindingsSeconds,
			verdict(r.FindingsSeconds <= TargetFindingsSeconds, "<= 10 s"))
	}
	if r.Dir != "" {
		fmt.Fprintf(tw, "kept\t%s\n", r.Dir)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "query\tmedian ms\tp95 ms\ttarget ms\thits\texample")
	for _, q := range r.Queries {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%s\t%d\t%s\n", q.Name, q.MedianMs, q.P95Ms,
			verdict(q.MedianMs <= q.TargetMs, fmt.Sprintf("<= %g", q.TargetMs)), q.Hits, q.Example)
	}
	for _, q := range r.LiveQueries {
		fmt.Fprintf(tw, "%s, during ingest\t%.2f\t%.2f\t%s\t%d\t%s\n", q.Name, q.MedianMs, q.P95Ms,
			verdict(q.MedianMs <= q.TargetMs, fmt.Sprintf("<= %g", q.TargetMs)), q.Hits, q.Example)
	}
	return tw.Flush()
}

func verdict(ok bool, target string) string {
	if ok {
		return "ok (" + target + ")"
	}
	return "MISSED (" + target + ")"
}

// WriteJSON prints a result for tools.
func WriteJSON(w io.Writer, r *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
