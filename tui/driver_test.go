package tui_test

import (
	"context"
	"io"
	"regexp"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/muesli/termenv"
)

// console is a console under test: Update is driven by hand and every
// command is run to completion, synchronously, as the program would.
type console struct {
	t    testing.TB
	m    tui.Model
	quit bool
	msgs []tea.Msg // every message delivered, for assertions
}

// newConsole opens a console on ws at w×h with the given colour profile.
func newConsole(t testing.TB, ws *incident.Workspace, w, h int, profile termenv.Profile) *console {
	t.Helper()
	return newConsoleOn(t, ws, w, h, profile, true)
}

// newConsoleOn opens a console for a dark or a light background.
func newConsoleOn(t testing.TB, ws *incident.Workspace, w, h int, profile termenv.Profile, dark bool) *console {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(profile)
	if _, err := ws.Marks(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := tui.New(caseOf(t, ws, incident.HandleOptions{Actor: testActor}), tui.Options{Renderer: r, Dark: dark, Ctx: ctx, JournalPoll: -1})
	c := &console{t: t, m: m}
	c.send(tea.WindowSizeMsg{Width: w, Height: h})
	c.run(m.Init())
	return c
}

// caseOf is the case handle of a test console on ws, named as the
// fixture's folder is in the golden views.
func caseOf(t testing.TB, ws *incident.Workspace, opt incident.HandleOptions) *incident.Handle {
	t.Helper()
	if opt.Name == "" {
		opt.Name = "fixture-incident"
	}
	h, err := ws.Handle(opt)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// testActor is who the journal records for a test console.
var testActor = journal.Actor{Name: "alice", Via: journal.ViaConsole}

// send delivers a message and runs what it starts.
func (c *console) send(msg tea.Msg) {
	c.t.Helper()
	c.msgs = append(c.msgs, msg)
	next, cmd := c.m.Update(msg)
	c.m = next.(tui.Model)
	c.run(cmd)
}

// step delivers a message without running the command it returns.
func (c *console) step(msg tea.Msg) tea.Cmd {
	next, cmd := c.m.Update(msg)
	c.m = next.(tui.Model)
	return cmd
}

// run executes a command and every command its messages start.
func (c *console) run(cmd tea.Cmd) {
	c.t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			c.t.Fatal("commands never settle")
		}
		cmd, queue = queue[0], queue[1:]
		if cmd == nil {
			continue
		}
		switch msg := cmd().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case tea.QuitMsg:
			c.quit = true
		default:
			c.msgs = append(c.msgs, msg)
			next, more := c.m.Update(msg)
			c.m = next.(tui.Model)
			queue = append(queue, more)
		}
	}
}

// keys types keys one message each: runes, or names like "enter".
func (c *console) keys(keys ...string) {
	c.t.Helper()
	for _, k := range keys {
		c.send(keyMsg(k))
	}
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "up":
		return tea.KeyMsg{Type: tea.KeyUp}
	case "down":
		return tea.KeyMsg{Type: tea.KeyDown}
	case "pgdown":
		return tea.KeyMsg{Type: tea.KeyPgDown}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// typeText types text into the focused input, one key per rune.
func (c *console) typeText(s string) {
	c.t.Helper()
	for _, r := range s {
		c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// screen is the view without ANSI styling.
func (c *console) screen() string { return ansi.Strip(c.m.View()) }

var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// cellWidth is the width of a line of a stripped screen.
func cellWidth(s string) int { return ansi.StringWidth(s) }
