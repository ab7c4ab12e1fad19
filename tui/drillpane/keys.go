package drillpane

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/tui/common"
)

// Control handles the drill's global keys (p, +, -, J, E, D) whatever
// the focus; ok false leaves the key to the panes.
func (m Model) Control(msg tea.KeyMsg) (Model, tea.Cmd, bool) {
	k := m.com.Keys
	if !m.On() || !key.Matches(msg, k.DrillPause, k.DrillFaster, k.DrillSlower, k.DrillJump, k.DrillEnd, k.DrillDismiss) {
		return m, nil, false
	}
	if key.Matches(msg, k.DrillDismiss) {
		if m.notice == nil {
			return m, common.Send(common.StatusMsg{Text: "no inject to dismiss (the Journal pane keeps them all)"}), true
		}
		m.notice = nil
		return m, nil, true
	}
	if !m.cfg.Facilitator {
		return m, common.Send(common.StatusMsg{Text: "disabled: the facilitator runs the drill's clock (p, +/-, J, E)"}), true
	}
	if m.ending {
		return m, common.Send(common.StatusMsg{Text: "writing the debrief…"}), true
	}
	d := m.cfg.Drill
	var status string
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, k.DrillEnd):
		m.Pending = &common.Ask{Kind: AskEnd, Prompt: "end the drill? the clock jumps to the end and the debrief is written; type yes: "}
		return m, nil, true
	case m.ended:
		status = "the scenario has ended: E writes the debrief"
	case key.Matches(msg, k.DrillPause):
		if d.Clock.Paused() {
			d.Clock.Resume()
			status = fmt.Sprintf("drill running at ×%g", d.Clock.Speed())
		} else {
			d.Clock.Pause()
			status = "drill paused: p resumes"
		}
	case key.Matches(msg, k.DrillFaster, k.DrillSlower):
		dir := 1
		if key.Matches(msg, k.DrillSlower) {
			dir = -1
		}
		d.Clock.SetSpeed(drill.StepSpeed(d.Clock.Speed(), dir))
		status = fmt.Sprintf("drill speed ×%g: one wall second is %s of scenario time", d.Clock.Speed(), countdown(time.Duration(d.Clock.Speed())*time.Second))
	case key.Matches(msg, k.DrillJump):
		_, at, ok := d.NextInject()
		if !ok {
			status = "no inject left: E ends the drill"
			break
		}
		d.Clock.Jump(at)
		status = "jumped to the next inject, " + at.UTC().Format("15:04:05")
		cmd = m.restart()
	}
	m.sync()
	return m, tea.Batch(cmd, common.Send(common.StatusMsg{Text: status})), true
}

// ShortHelp is the status bar's help with the Questions pane focused.
func (m Model) ShortHelp() []key.Binding {
	k := m.com.Keys
	as := common.Relabel
	out := []key.Binding{k.Up, k.Down, as(k.Open, "answer")}
	if m.cfg.Facilitator {
		out = append(out, as(k.DrillPause, "pause/run"), as(k.DrillJump, "next inject"), as(k.DrillEnd, "end"))
	}
	return append(out, k.NextPane, k.Help, k.Quit)
}

// FullHelp adds no column to the help screen: the drill's keys are told
// in lines of their own (HelpLines), whose clock keys they are.
func (m Model) FullHelp() [][]key.Binding { return nil }

// HelpLines are the drill's lines of the help screen (none outside a
// drill); a participant reads whose the clock keys are.
func (m Model) HelpLines() []string {
	if !m.On() {
		return nil
	}
	clock := "drill: p pause/resume · +/- speed · J jump to the next inject · E end and write the debrief"
	if !m.cfg.Facilitator {
		clock = "drill: p, +/-, J and E run the clock: the facilitator's keys, disabled here"
	}
	return []string{"", clock, "drill: D dismisses the inject · QUESTIONS pane: enter answers a question"}
}
