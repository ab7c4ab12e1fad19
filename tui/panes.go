package tui

import (
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// pane identifies a pane that can have focus, in the order tab cycles
// through them.
type pane int

const (
	paneTimeline pane = iota
	paneAgents
	paneFindings
	paneSteps
	paneJournal
	paneQuestions // a drill's briefing and questions
	paneAssist
	paneIndicators
	paneEvaluation
	paneDetail
	paneCount
)

// component is what the root asks of a pane: its view, and its keys for
// the status bar and the help screen (help.KeyMap).
type component interface {
	help.KeyMap
	View() string
}

// paneDef is a pane as the root reaches it. A pane is added here and as a
// field of Model, made in New.
type paneDef struct {
	name string
	// tab says whether tab reaches the pane now (nil: always); when says,
	// for the help, when it does.
	tab  func(m *Model) bool
	when string
	get  func(m *Model) component
	// update hands the pane a key or mouse event while it has focus.
	update func(m *Model, msg tea.Msg) tea.Cmd
	// focused is what the pane loads when tab brings it into view, or nil.
	focused func(m *Model) tea.Cmd
}

// panes are the panes that can have focus, by pane.
func panes() [paneCount]paneDef {
	return [paneCount]paneDef{
		paneTimeline: {name: "timeline",
			get: func(m *Model) component { return m.timeline },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.timeline, cmd = m.timeline.Update(msg)
				return cmd
			}},
		paneAgents: {name: "agents",
			get: func(m *Model) component { return m.agents },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.agents, cmd = m.agents.Update(msg)
				return cmd
			},
			focused: func(m *Model) tea.Cmd { return m.agents.Load() }},
		paneFindings: {name: "findings",
			get: func(m *Model) component { return m.findings },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.findings, cmd = m.findings.Update(msg)
				if a, ok := m.findings.TakeAsk(); ok {
					cmd = tea.Batch(cmd, m.prompt.Open(a))
				}
				return cmd
			},
			focused: func(m *Model) tea.Cmd {
				if m.findings.Loaded() {
					return nil
				}
				return m.findings.Load()
			}},
		paneSteps: {name: "playbook",
			get: func(m *Model) component { return m.steps },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.steps, cmd = m.steps.Update(msg)
				if a, ok := m.steps.TakeAsk(); ok {
					cmd = tea.Batch(cmd, m.prompt.Open(a))
				}
				return cmd
			},
			focused: func(m *Model) tea.Cmd {
				if m.steps.Loaded() {
					return nil
				}
				return m.steps.Load()
			}},
		paneJournal: {name: "journal",
			get: func(m *Model) component { return m.journal },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.journal, cmd = m.journal.Update(msg)
				return cmd
			}},
		paneIndicators: {name: "indicators",
			get: func(m *Model) component { return m.indicators },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.indicators, cmd = m.indicators.Update(msg)
				return cmd
			},
			focused: func(m *Model) tea.Cmd {
				if m.indicators.Loaded() {
					return nil
				}
				return m.indicators.Load()
			}},
		paneEvaluation: {name: "evaluation",
			get: func(m *Model) component { return m.evaluation },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.evaluation, cmd = m.evaluation.Update(msg)
				return cmd
			},
			focused: func(m *Model) tea.Cmd {
				if m.evaluation.Loaded() {
					return nil
				}
				return m.evaluation.Load()
			}},
		paneQuestions: {name: "questions", when: "in a drill",
			tab: func(m *Model) bool { return m.drill.On() },
			get: func(m *Model) component { return m.drill },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.drill, cmd = m.drill.Update(msg)
				if a, ok := m.drill.TakeAsk(); ok {
					cmd = tea.Batch(cmd, m.prompt.Open(a))
				}
				return cmd
			}},
		paneAssist: {name: "assistant", when: "once a opened it",
			tab:    func(m *Model) bool { return m.assist.Active() },
			get:    func(m *Model) component { return m.assist },
			update: func(m *Model, msg tea.Msg) tea.Cmd { return m.toAssist(msg) }},
		paneDetail: {name: "event", when: "once enter opened one",
			tab: func(m *Model) bool { return m.detail.Has() },
			get: func(m *Model) component { return m.detail },
			update: func(m *Model, msg tea.Msg) (cmd tea.Cmd) {
				m.detail, cmd = m.detail.Update(msg)
				return cmd
			}},
	}
}

func (p pane) String() string {
	if p < 0 || p >= paneCount {
		return panes()[paneTimeline].name
	}
	return panes()[p].name
}

// focused is the focused pane as a component.
func (m *Model) focused() component { return panes()[m.focus].get(m) }

// toFocused hands a key or mouse event to the focused pane only.
func (m Model) toFocused(msg tea.Msg) (Model, tea.Cmd) {
	cmd := panes()[m.focus].update(&m, msg)
	return m, cmd
}

// cycle moves focus to the next pane tab reaches (the event pane only
// once one is open), and loads what it shows.
func (m *Model) cycle(d int) tea.Cmd {
	defs := panes()
	var order []pane
	for p, def := range defs {
		if def.tab == nil || def.tab(m) {
			order = append(order, pane(p))
		}
	}
	i := 0
	for j, p := range order {
		if p == m.focus {
			i = j
		}
	}
	m.focus = order[(i+d+len(order))%len(order)]
	if f := defs[m.focus].focused; f != nil {
		return f(m)
	}
	return nil
}

// tabCycle is the help's line of the panes tab goes through, in order,
// those it reaches only at times with when.
func tabCycle() string {
	var parts []string
	for _, def := range panes() {
		n := def.name
		if n == "steps" {
			n = "playbook"
		}
		if def.when != "" {
			n += " (" + def.when + ")"
		}
		parts = append(parts, n)
	}
	return "tab: " + strings.Join(parts, " → ")
}

// fullHelp is the help screen's columns: the keys every pane shares, then
// one column of the keys panes add of their own, in tab order.
func (m *Model) fullHelp() [][]key.Binding {
	groups := m.com.Keys.GlobalHelp()
	var own []key.Binding
	for _, def := range panes() {
		for _, col := range def.get(m).FullHelp() {
			own = append(own, col...)
		}
	}
	if len(own) > 0 {
		groups = append(groups, own)
	}
	return groups
}
