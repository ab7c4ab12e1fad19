package tui_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/platform"
	"github.com/cordon-ir/cordon/tui"
	"github.com/muesli/termenv"
)

// benchIncident is a workspace kept by `cordon bench --events 1000000
// --keep` (its incident folder); the console benchmarks need one and skip
// without it. docs/performance.md has the figures.
func benchIncident(b *testing.B) *incident.Workspace {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	ws, err := incident.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ws.Close() })
	return ws
}

// BenchmarkConsoleOpen: New, the first page, counts and agents, and the
// first View at 120x40 (target: 1 s on a million events).
func BenchmarkConsoleOpen(b *testing.B) {
	ws := benchIncident(b)
	for i := 0; i < b.N; i++ {
		c := newConsole(b, ws, 120, 40, termenv.Ascii)
		_ = c.m.View()
	}
}

// BenchmarkConsoleKeyFrame: the frame of a key press that moves the cursor
// — Update and View, what the terminal waits for (target: 16 ms). The page
// reads the key starts run after the frame, untimed, as they do in a
// terminal.
func BenchmarkConsoleKeyFrame(b *testing.B) {
	ws := benchIncident(b)
	c := newConsole(b, ws, 120, 40, termenv.Ascii)
	for _, k := range []string{"j", "pgdown", "G", "g"} {
		b.Run(k, func(b *testing.B) {
			msg := keyMsg(k)
			for i := 0; i < b.N; i++ {
				next, cmd := c.m.Update(msg)
				_ = next.View()
				b.StopTimer()
				c.m = next.(tui.Model)
				c.run(cmd)
				b.StartTimer()
			}
		})
	}
}

// BenchmarkConsoleCheckAll: C in the Playbook pane — every step's evidence
// check, the kill-switch layers judged against every capability of the
// subject — on a console whose Findings pane has already shown the
// findings (target: 1 s on a million events). Each run opens the
// workspace afresh, so that nothing the previous run computed is reused;
// the Findings pane's load is not timed. The workspace is opened for
// writing (checks are journaled): point CORDON_BENCH_INCIDENT at a copy
// kept for benchmarks, private to its owner (chmod 700).
func BenchmarkConsoleCheckAll(b *testing.B) {
	dir := os.Getenv("CORDON_BENCH_INCIDENT")
	if dir == "" {
		b.Skip("set CORDON_BENCH_INCIDENT to an incident kept by cordon bench --keep")
	}
	var cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		ws, err := incident.Create(dir)
		if err != nil {
			b.Fatal(err)
		}
		containAt(b, ws)
		c := newConsole(b, ws, 120, 40, termenv.Ascii)
		c.keys("tab", "tab") // the Findings pane runs the detectors
		if len(c.m.Findings().Findings()) == 0 {
			b.Fatal("no findings")
		}
		c.keys("tab")
		b.StartTimer()
		began := processCPU()
		c.keys("C")
		cpu += processCPU() - began
		b.StopTimer()
		if text, err := c.m.Status(); err != nil || !strings.Contains(text, "verified") {
			b.Fatalf("after C: %q, %v", text, err)
		}
		ws.Close()
	}
	// the machine is shared: CPU time is the figure to compare
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
}

// processCPU is the CPU time the process used so far, every thread.
func processCPU() time.Duration { return platform.ProcessCPU() }

// containAt records the subject contained at the middle of the incident
// (once), so that the kill-switch layers' checks judge capabilities.
func containAt(b *testing.B, ws *incident.Workspace) {
	s, err := ws.State()
	if err != nil {
		b.Fatal(err)
	}
	if !s.Times["contained_at"].IsZero() {
		return
	}
	first, last := ws.Span()
	at := first.Add(last.Sub(first) / 2)
	if _, err := ws.SetStep(context.Background(), testActor, "contain.stop", incident.StepDone, at, "benchmark"); err != nil {
		b.Fatal(err)
	}
}
