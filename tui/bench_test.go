package tui_test

import (
	"os"
	"testing"

	"github.com/cordon-ir/cordon/incident"
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
