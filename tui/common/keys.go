package common

import "github.com/charmbracelet/bubbles/key"

// KeyMap is the console's one key map; help is generated from it. The
// bindings follow less, lnav and k9s.
type KeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	NextPane, PrevPane, Open, Back          key.Binding
	Search, NextMatch, PrevMatch, Facet     key.Binding
	Mark, NextMark, PrevMark, Time          key.Binding
	// Jumps: the next or previous denial and finding evidence, walking
	// one call/process/credential, the clock's origin, the `:` line.
	NextDenial, PrevDenial, NextEvidence, PrevEvidence key.Binding
	Walk, TimeOrigin, Command                          key.Binding
	Help, Quit, ForceQuit                              key.Binding
	HistoryUp, HistoryDown, Submit                     key.Binding
	// Left and Right move across a pivot's columns; Exclude takes a facet
	// value out of the filter rather than into it.
	Left, Right, Exclude key.Binding

	// Case work: the Playbook pane, notes, the Journal pane.
	Start, Done, Skip, Check, CheckAll, Toggle key.Binding
	Note, StepNote, TypeFilter                 key.Binding

	// A tabletop drill: the facilitator's clock keys and the inject line.
	DrillPause, DrillFaster, DrillSlower, DrillJump, DrillEnd, DrillDismiss key.Binding

	// The Assistant pane: a opens it on the selection; y/n answer its
	// question before evidence is sent.
	Assist, Yes, No key.Binding

	// The Findings pane: s suppresses an episode's detector for its agent.
	Suppress key.Binding

	// The Evaluation pane: r scores the next run id of the case's.
	EvalRun key.Binding
}

// DefaultKeyMap returns a fresh key map (one per console).
func DefaultKeyMap() *KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return &KeyMap{
		Up:        b("↑/k", "up", "up", "k"),
		Down:      b("↓/j", "down", "down", "j"),
		PageUp:    b("pgup", "page up", "pgup", "ctrl+b", "ctrl+u"),
		PageDown:  b("pgdn", "page down", "pgdown", "ctrl+f", "ctrl+d", " "),
		Top:       b("g", "first", "g", "home"),
		Bottom:    b("G", "last", "G", "end"),
		NextPane:  b("tab", "next pane", "tab"),
		PrevPane:  b("shift+tab", "previous pane", "shift+tab"),
		Open:      b("enter", "open", "enter"),
		Back:      b("esc", "back / clear", "esc"),
		Search:    b("/", "search", "/"),
		NextMatch: b("n", "next match", "n"),
		PrevMatch: b("N", "previous match", "N"),
		Facet:     b("f", "filter by field", "f"),
		Mark:      b("m", "mark event", "m"),
		NextMark:  b("'", "next mark", "'"),
		PrevMark:  b("\"", "previous mark", "\""),
		Time:      b("t", "absolute/relative time", "t"),

		NextDenial:   b("]", "next denial", "]"),
		PrevDenial:   b("[", "previous denial", "["),
		NextEvidence: b("}", "next finding evidence", "}"),
		PrevEvidence: b("{", "prev. finding evidence", "{"),
		Walk:         b("w", "walk call/process/cred.", "w"),
		TimeOrigin:   b("T", "time from this event", "T"),
		Command:      b(":", "command line", ":"),
		Help:         b("?", "help", "?"),
		Quit:         b("q", "quit", "q"),
		ForceQuit:    b("ctrl+c", "quit", "ctrl+c"),

		HistoryUp:   b("↑", "older query", "up"),
		HistoryDown: b("↓", "newer query", "down"),
		Submit:      b("enter", "run", "enter"),
		Left:        b("←/h", "left", "left", "h"),
		Right:       b("→/l", "right", "right", "l"),
		Exclude:     b("x/-", "exclude value", "x", "-"),

		Start:      b("s", "start step", "s"),
		Done:       b("d", "step done", "d"),
		Skip:       b("x", "skip step", "x"),
		Check:      b("c", "run step's check", "c"),
		CheckAll:   b("C", "run all checks", "C"),
		Toggle:     b("space", "tick checklist item", " "),
		Note:       b("i", "insert note", "i"),
		StepNote:   b("n", "note on step", "n", "i"),
		TypeFilter: b("t", "journal: by type", "t"),

		DrillPause:   b("p", "drill: pause/resume", "p"),
		DrillFaster:  b("+", "drill: faster", "+", "="),
		DrillSlower:  b("-", "drill: slower", "-"),
		DrillJump:    b("J", "drill: jump to next inject", "J"),
		DrillEnd:     b("E", "drill: end and debrief", "E"),
		DrillDismiss: b("D", "drill: dismiss inject", "D"),

		Assist: b("a", "assistant", "a"),
		Yes:    b("y", "send", "y"),
		No:     b("n", "don't send", "n"),

		Suppress: b("s", "suppress (with a reason)", "s"),

		EvalRun: b("r", "evaluation: score the next run", "r"),
	}
}

// ShortHelp is the one-line help of the status bar where a pane adds
// nothing of its own (the timeline).
func (k *KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Search, k.Open, k.Facet, k.NextPane, k.Mark, k.Note, k.Assist, k.Help, k.Quit}
}

// GlobalHelp are the `?` screen's columns of the keys every pane shares:
// moving, searching, and the console's own. The panes' own keys follow
// (each pane's FullHelp).
func (k *KeyMap) GlobalHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Search, k.NextMatch, k.PrevMatch, k.Facet, k.Open, k.Back},
		{k.NextPane, k.PrevPane, k.Mark, k.NextMark, k.PrevMark, k.Note, k.Assist, k.Time, k.TimeOrigin, k.Help, k.Quit},
		{k.Command, k.NextDenial, k.PrevDenial, k.NextEvidence, k.PrevEvidence, k.Walk},
	}
}

// Relabel is a binding described for what it does in one pane.
func Relabel(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// HelpFirst moves the "? help" binding to the front of a status bar's
// help, so that a narrow terminal cuts the other keys rather than the one
// that lists them all.
func (k *KeyMap) HelpFirst(bs []key.Binding) []key.Binding {
	for i, b := range bs {
		if i > 0 && b.Help() == k.Help.Help() {
			return append(append([]key.Binding{b}, bs[:i]...), bs[i+1:]...)
		}
	}
	return bs
}

// InputHelp is the help shown while the search bar has focus.
func (k *KeyMap) InputHelp() []key.Binding {
	return []key.Binding{k.Submit, k.HistoryUp, k.HistoryDown, k.Back}
}
