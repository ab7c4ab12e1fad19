package watch

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/fleet"
	"github.com/cordon-ir/cordon/incident"
)

// BenchmarkWatchMatchesOneShot is a bench check, not a speed figure: the
// bench incident's every event shipped in time order to a server in the
// process, watched to its end, gives the findings the incident's kept
// result holds (the one-shot engine's over the same events): the same
// ids, severities, detectors, agents and evidence ids, each created once.
// Set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep.
func BenchmarkWatchMatchesOneShot(b *testing.B) {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ctx := context.Background()
	ws, err := incident.Open(dir, incident.AllowShared(true))
	if err != nil {
		b.Fatal(err)
	}
	res, err := ws.Result(ctx)
	if err != nil {
		b.Fatal(err)
	}
	var evs []evidence.Event
	if err := ws.Each(ctx, evidence.All(), func(ev evidence.Event) error {
		evs = append(evs, ev)
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	ws.Close()
	for b.Loop() {
		_, js := bus(b)
		start := time.Now()
		p := fleet.NewPublisher(js, 0)
		for i := 0; i < len(evs); i += 10000 {
			if _, err := p.Publish(ctx, evs[i:min(i+10000, len(evs))], nil); err != nil {
				b.Fatal(err)
			}
		}
		b.Logf("%d events shipped in %s", len(evs), time.Since(start).Round(time.Millisecond))
		start = time.Now()
		s := watchWithin(b, js, Config{Durable: "equivalence", Lateness: time.Second, Idle: 500 * time.Millisecond, MaxBuffered: 1 << 20}, 15*time.Minute)
		b.Logf("watched in %s: %+v", time.Since(start).Round(time.Millisecond), s)
		got, created := fold(published(b, js))
		if diff := findingsDiff(res.Findings, got); diff != "" {
			// the same engine over the same events, attributing as it
			// reads as the watcher does (the workspace's pass reads the
			// attribution its ingest stored, over the whole span)
			rules, err := detect.Builtin()
			if err != nil {
				b.Fatal(err)
			}
			eng := detect.Engine{Rules: rules, Attribute: true}
			asRead, err := eng.Run(ctx, detect.NewMemSource(evs))
			if err != nil {
				b.Fatal(err)
			}
			b.Errorf("the watcher's findings differ from the kept one-shot result's:\n%s\nand from a one-shot pass attributing as it reads:\n%s", diff, findingsDiff(asRead, got))
		}
		for id, n := range created {
			if n != 1 {
				b.Errorf("finding %s created %d times", id, n)
			}
		}
		b.ReportMetric(float64(len(res.Findings)), "findings")
		b.ReportMetric(float64(len(evs)), "events")
	}
}

// findingsDiff says how two sets of findings differ, finding by finding
// (its id, detector, agent, severity, events counted), "" when they are
// the same down to the evidence ids.
func findingsDiff(want, got []detect.Finding) string {
	byID := func(fs []detect.Finding) map[string]detect.Finding {
		m := map[string]detect.Finding{}
		for _, f := range fs {
			m[f.ID] = f
		}
		return m
	}
	w, g := byID(want), byID(got)
	var lines []string
	say := func(f detect.Finding) string {
		return fmt.Sprintf("%s %s %s %s (%d events, %s to %s)", f.ID, f.Detector, f.Agent, f.Severity, len(f.Events), f.Start.Format(time.TimeOnly), f.End.Format(time.TimeOnly))
	}
	for id, f := range w {
		h, ok := g[id]
		switch {
		case !ok:
			lines = append(lines, "missing: "+say(f))
		case h.Severity != f.Severity || !slices.Equal(h.Events, f.Events):
			var only []string
			for _, e := range h.Events {
				if !slices.Contains(f.Events, e) {
					only = append(only, e)
				}
			}
			lines = append(lines, "differs: "+say(f)+" / watcher: "+say(h)+"; events only the watcher's: "+strings.Join(only, ","))
		}
	}
	for id, f := range g {
		if _, ok := w[id]; !ok {
			lines = append(lines, "extra: "+say(f))
		}
	}
	slices.Sort(lines)
	if len(lines) > 40 {
		lines = append(lines[:40], fmt.Sprintf("... and %d more", len(lines)-40))
	}
	return strings.Join(lines, "\n")
}
