package tui_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/tui"
	"github.com/muesli/termenv"
)

// TestConsoleFlow runs the real program loop: open, search, open the
// result, go back, quit. It waits on what the terminal shows, never on time.
func TestConsoleFlow(t *testing.T) {
	ws := incidenttest.New(t)
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := tui.New(caseOf(t, ws, incident.HandleOptions{}), tui.Options{Renderer: r, Dark: true, Ctx: ctx})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))

	waitFor(t, tm, "74 hits")
	tm.Send(keyMsg("/"))
	tm.Type("curl")
	waitFor(t, tm, "/curl")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "2 hits · search: curl")
	tm.Send(keyMsg("enter"))
	waitFor(t, tm, "EVENT  tool_call by agent-7")
	tm.Send(keyMsg("esc"))
	waitFor(t, tm, "TIMELINE")
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	final := tm.FinalModel(t).(tui.Model)
	if final.Focus() != "timeline" || final.Err() != nil {
		t.Errorf("ended on %s with %v", final.Focus(), final.Err())
	}
}

func waitFor(t *testing.T, tm *teatest.TestModel, text string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte(text))
	}, teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}
