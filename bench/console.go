package bench

import (
	"context"
	"io"
	"sort"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui"
	"github.com/muesli/termenv"
)

// Console targets: the console is on screen within a second of opening a
// million events, and a key press is drawn within a 60 Hz frame.
const (
	TargetOpenMs  = 1000
	TargetFrameMs = 16
)

// cmdTimeout bounds how long settle waits for the console's commands: a
// command that waits (a tick, a stream) is left behind, as the terminal
// would leave it running in the background. maxOpens is how many times
// the console is opened and timed.
const (
	cmdTimeout = time.Minute
	maxOpens   = 5
)

// timeConsole opens the console on ws at 120x40 the way cordon open does
// and times it, then times the frame (Update and View) of key presses that
// move through the timeline. A key's page reads run after its frame, as
// they do in a terminal, and are not part of it.
func timeConsole(ctx context.Context, ws *incident.Workspace, presses int) ([]QueryStats, error) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	var m tea.Model
	var opens []time.Duration
	for i := 0; i < min(presses, maxOpens); i++ {
		began := time.Now()
		h, err := ws.Handle(incident.HandleOptions{Name: "bench"})
		if err != nil {
			return nil, err
		}
		m = tui.New(h, tui.Options{Renderer: r, Dark: true, Ctx: ctx, JournalPoll: -1})
		var last, sized time.Time
		var cmd tea.Cmd
		m, last = settle(m, m.Init())
		m, cmd = m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m, sized = settle(m, cmd)
		if sized.After(last) {
			last = sized
		}
		drawn := time.Now()
		_ = m.View()
		// the time a command was left waiting is not the open's
		opens = append(opens, last.Sub(began)+time.Since(drawn))
	}
	// the first open is the one `cordon open` makes: it reads what the
	// workspace keeps (the detectors' result) for the first time
	out := []QueryStats{{Name: "console open", Example: "New, first page, counts, agents, findings, first View at 120x40", TargetMs: TargetOpenMs,
		MedianMs: ms(opens[0]), P95Ms: ms(opens[0]), Hits: ws.Counts().Total}}
	if again := opens[1:]; len(again) > 0 {
		sort.Slice(again, func(i, j int) bool { return again[i] < again[j] })
		out = append(out, QueryStats{Name: "console open again", Example: "the same, in the same process", TargetMs: TargetOpenMs,
			MedianMs: ms(quantile(again, 0.5)), P95Ms: ms(quantile(again, 0.95)), Hits: int64(len(again))})
	}
	for _, k := range []struct {
		name string
		key  tea.KeyMsg
	}{
		{"key j (frame)", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'j'}}},
		{"key pgdown (frame)", tea.KeyMsg{Type: tea.KeyPgDown}},
		{"key G (frame)", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'G'}}},
		{"key g (frame)", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'g'}}},
	} {
		lat := make([]time.Duration, 0, presses)
		for i := 0; i < presses; i++ {
			t := time.Now()
			next, cmd := m.Update(k.key)
			_ = next.View()
			lat = append(lat, time.Since(t))
			m, _ = settle(next, cmd)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		out = append(out, QueryStats{Name: k.name, Example: "Update + View at 120x40", TargetMs: TargetFrameMs,
			MedianMs: ms(quantile(lat, 0.5)), P95Ms: ms(quantile(lat, 0.95)), Hits: int64(presses)})
	}
	return out, nil
}

// settle runs cmd and every command its messages start, each on its own
// goroutine as the bubbletea runtime runs them, feeding the messages to m
// in the order they come. Once no message has come for cmdTimeout, the
// commands still running (a tick, a stream) are left behind, as the
// terminal would leave them running. It returns m and when the last
// message came.
func settle(m tea.Model, cmd tea.Cmd) (tea.Model, time.Time) {
	msgs := make(chan tea.Msg)
	left := make(chan struct{})
	defer close(left)
	running := 0
	start := func(c tea.Cmd) {
		if c == nil {
			return
		}
		running++
		go func() {
			select {
			case msgs <- c():
			case <-left:
			}
		}()
	}
	last := time.Now()
	start(cmd)
	for n := 0; running > 0 && n < 10000; n++ {
		select {
		case msg := <-msgs:
			running--
			last = time.Now()
			switch msg := msg.(type) {
			case nil, tea.QuitMsg:
			case tea.BatchMsg:
				for _, c := range msg {
					start(c)
				}
			default:
				var more tea.Cmd
				m, more = m.Update(msg)
				start(more)
			}
		case <-time.After(cmdTimeout):
			return m, last
		}
	}
	return m, last
}
