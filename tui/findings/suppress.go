package findings

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/common"
)

// askSuppress is the kind of the reason prompt s opens.
const askSuppress = "suppress"

type suppressedMsg struct {
	s   incident.Suppression
	err error
}

// SuppressedBy are the suppressions covering a finding (for tests).
func (m Model) SuppressedBy(id string) []string { return m.suppressedBy[id] }

// askSuppress asks the reason for suppressing the selected episode's
// detector for its agent; a suppression is a judgement on the record.
func (m *Model) askSuppress() tea.Cmd {
	f, ok := m.Selected()
	switch {
	case !m.open:
		return common.Send(common.StatusMsg{Text: "s suppresses an episode: enter opens the agent's episodes"})
	case !ok:
		return common.Send(common.StatusMsg{Text: "no episode selected to suppress"})
	case m.src.Actor().Observer:
		return common.Send(common.StatusMsg{Text: "read-only: observers cannot suppress"})
	}
	m.suppressing = detect.Scope{Detector: f.Detector, Agent: f.Agent}
	// the question is short and the rest is the placeholder: at 80
	// columns the reason typed must be seen (issue 33)
	m.Pending = &common.Ask{Kind: askSuppress, Prompt: fmt.Sprintf("suppress %s — reason: ", m.suppressing),
		Placeholder: "why it is not a concern (journaled; the finding stays listed; esc cancels)"}
	return nil
}

// suppress journals the suppression the prompt asked the reason for.
func (m Model) suppress(reason string) tea.Cmd {
	if reason == "" {
		return common.Send(common.StatusMsg{Text: "no suppression: a reason is needed"})
	}
	ctx, src, s := m.com.Ctx, m.src, m.suppressing
	return m.com.Cmd(func() tea.Msg {
		sup, err := src.Suppress(ctx, s, reason)
		return suppressedMsg{s: sup, err: err}
	})
}
