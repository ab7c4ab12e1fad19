package command

import (
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// Verb is one command of the line: its name, what its arguments are, and
// whether it changes the case (an observer is refused those).
type Verb struct {
	Name, Args, Help string
	Writes           bool
	// Complete lists the values its argument n (0: the first) may take;
	// nil completes nothing.
	Complete func(n int) []string
}

// SubmitMsg carries the line the responder ran, as typed.
type SubmitMsg struct{ Line string }

// maxHistory bounds the line's own history.
const maxHistory = 200

// Model is the `:` line; closed until Open.
type Model struct {
	com     common.Common
	input   textinput.Model
	open    bool
	verbs   []Verb
	aliases map[string]string

	history []string // oldest first
	hpos    int
	draft   string

	// cands are the completions of the word under the cursor, shown after
	// the input; tab cycles them from cpos (-1: none taken yet).
	cands  []string
	cpos   int
	base   string // the line before the word being completed
	listed bool   // the candidates were listed by a tab that chose none
}

// New returns a closed line that knows verbs and the user's aliases.
func New(com common.Common, verbs []Verb, aliases map[string]string) Model {
	in := common.NewInput(com.Styles, ":", "tab completes, :help lists · subject agent-7 · step done contain.stop · goto 10:21 · since 30m", 2000)
	return Model{com: com, input: in, verbs: verbs, aliases: aliases}
}

// SetSize sets the line's width.
func (m *Model) SetSize(w int) {
	m.com = m.com.SetSize(w, 1)
	m.input.Width = max(w-3, 1)
}

// IsOpen reports whether the line has focus.
func (m Model) IsOpen() bool { return m.open }

// Value is the text typed so far.
func (m Model) Value() string { return m.input.Value() }

// History is the lines run, oldest first.
func (m Model) History() []string { return m.history }

// Candidates are the completions on offer (for tests).
func (m Model) Candidates() []string { return m.cands }

// SetVerbs replaces the verbs (their completions are taken when the line
// opens).
func (m *Model) SetVerbs(verbs []Verb) { m.verbs = verbs }

// Open focuses an empty line.
func (m *Model) Open() tea.Cmd {
	m.open = true
	m.input.SetValue("")
	m.hpos, m.draft = len(m.history), ""
	m.cands, m.cpos = nil, -1
	return m.input.Focus()
}

func (m *Model) close() {
	m.open = false
	m.cands = nil
	m.input.Blur()
}

// Update edits the line: enter runs it, esc closes it, tab completes, ↑ ↓
// walk the line's own history.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	if !m.open {
		return m, nil
	}
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	keys := m.com.Keys
	switch {
	case key.Matches(k, keys.Submit):
		line := strings.TrimSpace(m.input.Value())
		m.close()
		if line == "" {
			return m, nil
		}
		m.remember(line)
		return m, common.Send(SubmitMsg{Line: line})
	case key.Matches(k, keys.Back):
		m.close()
		return m, nil
	case k.Type == tea.KeyTab:
		m.complete(1)
		return m, nil
	case k.Type == tea.KeyShiftTab:
		m.complete(-1)
		return m, nil
	case key.Matches(k, keys.HistoryUp):
		m.browse(-1)
		return m, nil
	case key.Matches(k, keys.HistoryDown):
		m.browse(1)
		return m, nil
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.cands, m.cpos, m.listed = m.candidates(), -1, false
	return m, cmd
}

func (m *Model) browse(d int) {
	if m.hpos == len(m.history) {
		m.draft = m.input.Value()
	}
	m.hpos = min(max(m.hpos+d, 0), len(m.history))
	if m.hpos == len(m.history) {
		m.input.SetValue(m.draft)
	} else {
		m.input.SetValue(m.history[m.hpos])
	}
	m.input.CursorEnd()
	m.cands = nil
}

func (m *Model) remember(line string) {
	m.history = slices.DeleteFunc(m.history, func(s string) bool { return s == line })
	m.history = append(m.history, line)
	if len(m.history) > maxHistory {
		m.history = m.history[len(m.history)-maxHistory:]
	}
}

// candidates are the completions of the last word of the line: a verb (or
// alias) for the first word, else what the verb says its argument takes.
func (m *Model) candidates() []string {
	line := m.input.Value()
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") || len(words) == 0 {
		words = append(words, "")
	}
	word := words[len(words)-1]
	m.base = strings.TrimSuffix(line, word)
	var all []string
	if len(words) == 1 {
		for _, v := range m.verbs {
			all = append(all, v.Name)
		}
		for a := range m.aliases {
			all = append(all, a)
		}
		slices.Sort(all)
	} else if v, ok := m.Verb(words[0]); ok && v.Complete != nil {
		all = v.Complete(len(words) - 2)
	}
	var out []string
	for _, c := range all {
		if strings.HasPrefix(c, word) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// complete takes the next (d=1) or previous completion: the first tab
// fills in what every candidate shares, or the one candidate and a space.
func (m *Model) complete(d int) {
	if m.cpos < 0 {
		m.cands = m.candidates()
	}
	switch n := len(m.cands); {
	case n == 0:
		return
	case n == 1:
		m.input.SetValue(m.base + m.cands[0] + " ")
		m.cands, m.cpos = m.candidates(), -1
	case m.cpos < 0 && len(sharedPrefix(m.cands)) > len(strings.TrimPrefix(m.input.Value(), m.base)):
		m.input.SetValue(m.base + sharedPrefix(m.cands))
	case m.cpos < 0 && !m.listed:
		// as a shell does: the first tab that cannot choose lists
		m.listed = true
	default:
		m.cpos = ((m.cpos+d)%n + n) % n
		if m.cpos < 0 {
			m.cpos = 0
		}
		m.input.SetValue(m.base + m.cands[m.cpos])
	}
	m.input.CursorEnd()
}

func sharedPrefix(l []string) string {
	p := l[0]
	for _, s := range l[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

// Verb finds a verb by name; an alias reads as the verb it starts with.
func (m Model) Verb(name string) (Verb, bool) {
	if a, ok := m.aliases[name]; ok {
		name, _, _ = strings.Cut(strings.TrimSpace(a), " ")
	}
	for _, v := range m.verbs {
		if v.Name == name {
			return v, true
		}
	}
	return Verb{}, false
}

// Verbs are the line's verbs, in the order the help lists them.
func (m Model) Verbs() []Verb { return m.verbs }

// Expand replaces a leading alias by what it stands for.
func (m Model) Expand(line string) string {
	first, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	if a, ok := m.aliases[first]; ok {
		return strings.TrimSpace(a + " " + rest)
	}
	return line
}

// View renders the line and, after it, the completions on offer.
func (m Model) View() string {
	in := m.input
	in.SetValue(evidence.PrintableMessage(in.Value()))
	// as wide as the text: the hint follows it, not the input's padding
	in.Width = min(max(len([]rune(in.Value()))+1, 1), max(m.com.Width-3, 1))
	if in.Value() == "" {
		in.Width = max(m.com.Width-3, 1) // the placeholder shows whole
	}
	out := in.View()
	if len(m.cands) > 0 && m.input.Value() != "" {
		shown := m.cands
		if len(shown) > 8 {
			shown = append(shown[:8:8], "…")
		}
		out += "  " + m.com.Styles.Dim.Render(common.Fit("tab: "+strings.Join(shown, " "), max(m.com.Width-len([]rune(m.input.Value()))-5, 0)))
	} else if v, ok := m.Verb(firstWord(m.input.Value())); ok {
		out += "  " + m.com.Styles.Dim.Render(common.Fit(v.Name+" "+v.Args+" — "+v.Help, max(m.com.Width-len([]rune(m.input.Value()))-5, 0)))
	}
	return common.PadRight(out, m.com.Width)
}

func firstWord(s string) string {
	f, _, _ := strings.Cut(strings.TrimSpace(s), " ")
	return f
}
