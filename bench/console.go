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

// cmdTimeout bounds one console command run by settle: a command that
// waits (a tick, a stream) is left behind, as the terminal would leave it
// running in the background.
const cmdTimeout = 2 * time.Second

// timeConsole opens the console on ws at 120x40 the way cordon open does
// and times it, then times the frame (Update and View) of key presses that
// move through the timeline. A key's page reads run after its frame, as
// they do in a terminal, and are not part of it.
func timeConsole(ctx context.Context, ws *incident.Workspace, presses int) ([]QueryStats, error) {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	began := time.Now()
	h, err := ws.Handle(incident.HandleOptions{Name: "bench"})
	if err != nil {
		return nil, err
	}
	var m tea.Model = tui.New(h, tui.Options{Renderer: r, Dark: true, Ctx: ctx, JournalPoll: -1})
	m = settle(m, m.Init())
	m, cmd := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = settle(m, cmd)
	_ = m.View()
	open := time.Since(began)
	out := []QueryStats{{Name: "console open", Example: "New, first page, counts, agents, first View at 120x40", TargetMs: TargetOpenMs,
		MedianMs: ms(open), P95Ms: ms(open), Hits: ws.Counts().Total}}
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
			m = settle(next, cmd)
		}
		sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
		out = append(out, QueryStats{Name: k.name, Example: "Update + View at 120x40", TargetMs: TargetFrameMs,
			MedianMs: ms(quantile(lat, 0.5)), P95Ms: ms(quantile(lat, 0.95)), Hits: int64(presses)})
	}
	return out, nil
}

// settle runs cmd and every command its messages start, feeding the
// messages to m, as the bubbletea runtime would.
func settle(m tea.Model, cmd tea.Cmd) tea.Model {
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0 && n < 10000; n++ {
		cmd, queue = queue[0], queue[1:]
		if cmd == nil {
			continue
		}
		msg, ok := run(cmd)
		if !ok {
			continue
		}
		switch msg := msg.(type) {
		case nil, tea.QuitMsg:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			var more tea.Cmd
			m, more = m.Update(msg)
			queue = append(queue, more)
		}
	}
	return m
}

// run runs a command, giving up on one that waits longer than cmdTimeout.
func run(cmd tea.Cmd) (tea.Msg, bool) {
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		return msg, true
	case <-time.After(cmdTimeout):
		return nil, false
	}
}
