package tui_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/tui"
	"github.com/muesli/termenv"
)

// bigLedger writes n events over two hours, three to a timestamp (ties are
// where a cursor is easiest to get wrong).
func bigLedger(n int) []byte {
	var b strings.Builder
	for i := range n {
		s := i / 3
		fmt.Fprintf(&b, `{"v":1,"ts":"2026-07-21T%02d:%02d:%02d.%03dZ","type":"tool_call","agent":"agent-%d","call_id":"c-%d","tool":"bash","args":{"cmd":"step %d"}}`+"\n",
			10+s/3600, s/60%60, s%60, 0, i%4, i, i)
	}
	return []byte(b.String())
}

// TestTimelinePagesLargeIncident walks a 6000-event incident row by row and
// page by page: every event appears once, in time order, and the timeline
// never holds more than its window.
func TestTimelinePagesLargeIncident(t *testing.T) {
	const n = 6000
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "big.jsonl", bigLedger(n)))
	all, err := ws.Search(context.Background(), evidence.Request{Limit: 1500, Sort: evidence.SortTime})
	if err != nil {
		t.Fatal(err)
	}
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	maxHeld := 0
	held := func() {
		maxHeld = max(maxHeld, len(c.m.Timeline().Rows()))
	}
	for i, want := range all.Events {
		ev, _ := c.m.Timeline().Selected()
		if ev.ID != want.ID {
			t.Fatalf("row %d is %s (%s), want %s (%s)", i, ev.ID, ev.Message, want.ID, want.Message)
		}
		c.keys("j")
		held()
	}
	var prev evidence.Event
	for range n / 20 {
		c.keys("pgdown")
		held()
		ev, _ := c.m.Timeline().Selected()
		if ev.Time.Before(prev.Time) {
			t.Fatalf("pgdown went back in time: %v after %v", ev.Time, prev.Time)
		}
		prev = ev
	}
	last, _ := ws.Page(context.Background(), evidence.PageRequest{Backward: true, Limit: 1})
	if ev, _ := c.m.Timeline().Selected(); ev.ID != last.Events[0].ID {
		t.Errorf("paging down ends on %s, want the last event %s", ev.Message, last.Events[0].Message)
	}
	c.keys("g")
	if ev, _ := c.m.Timeline().Selected(); ev.ID != all.Events[0].ID {
		t.Errorf("g lands on %s", ev.Message)
	}
	c.keys("G")
	held()
	if ev, _ := c.m.Timeline().Selected(); ev.ID != last.Events[0].ID {
		t.Errorf("G lands on %s", ev.Message)
	}
	for range 200 { // and back up across page boundaries
		c.keys("k")
		held()
	}
	if maxHeld >= n/4 {
		t.Errorf("the timeline held %d of %d events at once", maxHeld, n)
	}
	if s := c.screen(); !strings.Contains(s, "6,000 events") {
		t.Errorf("header:\n%s", s)
	}
}

// TestBackgroundIngest opens the console at once on a workspace that is
// still being ingested: the header follows the progress, the timeline and
// the counts fill in, and the last update leaves the whole incident shown.
func TestBackgroundIngest(t *testing.T) {
	ws, err := incident.Create(filepath.Join(t.TempDir(), "live"))
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	run := ws.StartIngest(context.Background(), []string{incidenttest.ConsoleFixture()}, incident.IngestOptions{}, false)
	defer run.Stop()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &console{t: t, m: tui.New(caseOf(t, ws, incident.HandleOptions{Name: "live", Ingest: run}), tui.Options{Renderer: r, Dark: true, Ctx: ctx, JournalPoll: -1})}
	c.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	c.run(c.m.Init()) // returns once the ingest's last update is handled
	s := c.screen()
	if !strings.Contains(s, "ingest done: 74 new events, 4 files") || !strings.Contains(s, "74 events") {
		t.Errorf("header after the ingest:\n%s", s)
	}
	if n := len(c.m.Timeline().Rows()); n != 74 {
		t.Errorf("timeline holds %d rows after the ingest, want 74", n)
	}
	if a := c.m.Agents().Agents(); len(a) != 2 {
		t.Errorf("agents after the ingest: %+v", a)
	}
}
