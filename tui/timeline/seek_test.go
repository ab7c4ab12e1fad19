package timeline

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/tui/common"
)

// settle runs a command and every command its messages start, through m.
func settle(t *testing.T, m Model, cmd tea.Cmd) (Model, []tea.Msg) {
	t.Helper()
	var out []tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		cmd, queue = queue[0], queue[1:]
		if cmd == nil {
			continue
		}
		switch msg := cmd().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		default:
			out = append(out, msg)
			var more tea.Cmd
			m, more = m.Update(msg)
			queue = append(queue, more)
		}
	}
	return m, out
}

// TestJumpAskedBeforeAReloadLands: ] pressed, then the window reloads
// (new events landed, a pass ended) before the jump's reply comes: the
// jump still lands and says so. It used to be dropped as stale, and the
// key did nothing.
func TestJumpAskedBeforeAReloadLands(t *testing.T) {
	ctx := context.Background()
	st := evidence.NewMemStore()
	t0 := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	var evs []evidence.Event
	for i := range 40 {
		ev := evidence.Event{ID: fmt.Sprintf("e%02d", i), Time: t0.Add(time.Duration(i) * time.Second), Kind: "tool_call", Agent: "agent-7"}
		if i == 30 {
			ev.Kind, ev.Decision = "policy_decision", evidence.DecisionDeny
		}
		evs = append(evs, ev)
	}
	if _, err := st.Index(ctx, evs, nil); err != nil {
		t.Fatal(err)
	}
	com := common.New(ctx, common.DefaultStyles(lipgloss.NewRenderer(io.Discard), true), common.DefaultKeyMap(), nil).SetSize(80, 24)
	m := New(com, st)
	m.SetSize(80, 20)
	m, _ = settle(t, m, m.Init())
	if len(m.rows) == 0 {
		t.Fatal("no rows loaded")
	}
	seek := m.Seek(evidence.Term("decision", evidence.DecisionDeny), false, "denial")
	m, _ = settle(t, m, m.Refresh())
	m, msgs := settle(t, m, seek)
	ev, ok := m.Selected()
	if !ok || ev.ID != "e30" {
		t.Errorf("after the reload the cursor is on %q, want the denial e30", ev.ID)
	}
	said := false
	for _, msg := range msgs {
		if s, ok := msg.(common.StatusMsg); ok && strings.HasPrefix(s.Text, "denial at 10:00:30.000") {
			said = true
		}
	}
	if !said {
		t.Errorf("the jump was not said: %#v", msgs)
	}
	// a move asked after the jump (G, a mark) wins over its late reply
	m, _ = settle(t, m, m.JumpTo(evs[0]))
	seek = m.Seek(evidence.Term("decision", evidence.DecisionDeny), false, "denial")
	m, _ = settle(t, m, m.JumpTo(evs[39]))
	m, _ = settle(t, m, seek)
	if ev, _ := m.Selected(); ev.ID != "e39" {
		t.Errorf("a jump's reply after a later move put the cursor on %s, want e39", ev.ID)
	}
}
