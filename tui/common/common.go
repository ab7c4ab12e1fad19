package common

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
)

// Common is the value each pane carries: built once per console (one per
// SSH session later), never a package global.
type Common struct {
	Width, Height int
	Styles        *Styles
	Keys          *KeyMap
	// Ctx ends with the console: commands pass it to the store.
	Ctx    context.Context
	Logger *slog.Logger
}

// New builds a Common from its parts; a nil logger discards.
func New(ctx context.Context, st *Styles, keys *KeyMap, log *slog.Logger) Common {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	return Common{Styles: st, Keys: keys, Ctx: ctx, Logger: log}
}

// SetSize returns c with a new size.
func (c Common) SetSize(w, h int) Common {
	c.Width, c.Height = max(w, 0), max(h, 0)
	return c
}

// Cmd wraps the work of a command so that a panic in it (a store bug, a
// malformed record) becomes an ErrMsg on the status line and a stack in the
// debug log, instead of tearing the console down mid-incident.
func (c Common) Cmd(f func() tea.Msg) tea.Cmd {
	log := c.Logger
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				log.Error("command panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				msg = ErrMsg{Err: fmt.Errorf("internal error: %v (details in the --debug log)", r)}
			}
		}()
		return f()
	}
}

// Send returns a command that delivers msg.
func Send(msg tea.Msg) tea.Cmd {
	return func() tea.Msg { return msg }
}

// ErrMsg puts an error on the status line until it is dismissed.
type ErrMsg struct{ Err error }

// StatusMsg puts a short notice on the status line.
type StatusMsg struct{ Text string }

// OpenEventMsg asks the root to show an event in the detail pane.
type OpenEventMsg struct{ Event evidence.Event }

// FilterMsg asks the root to change the timeline's filter: Add narrows it
// by a clause, or Set replaces the whole filter when Replace is true.
// Label, with Set, is what the header shows instead of the query ("finding
// boundary-probing · agent-7 · 35 events"): an id regexp reads as nothing.
type FilterMsg struct {
	Add     evidence.Query
	Set     evidence.Query
	Replace bool
	Label   string
}

// EventsLabel is "N event(s)", for labels of filters by id.
func EventsLabel(n int) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%d events", n)
}

// ToggleMarkMsg asks the root to mark or unmark an event.
type ToggleMarkMsg struct{ Event evidence.Event }

// Asking holds the question a pane's key raised (Pending) until the
// console opens its prompt for it (TakeAsk). A pane that asks embeds it.
type Asking struct {
	Pending *Ask
}

// TakeAsk returns the question a key just raised, once.
func (q *Asking) TakeAsk() (Ask, bool) {
	if q.Pending == nil {
		return Ask{}, false
	}
	a := *q.Pending
	q.Pending = nil
	return a, true
}
