package fleetview

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/capability"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/muesli/termenv"
)

func newModel(t *testing.T, b *Board, opt Options) Model {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	com := common.New(ctx, common.DefaultStyles(r, true), common.DefaultKeyMap(), nil).SetSize(120, 24)
	return New(com, b, opt)
}

func finding(id, agent, detector, sev string, at int) detect.Finding {
	t := time.Date(2026, 11, 4, 10, 0, at, 0, time.UTC)
	return detect.Finding{ID: id, Agent: agent, Detector: detector, Severity: sev, Title: detector + " by " + agent,
		Start: t, End: t, Events: []string{"e" + id}, Matches: 1}
}

func update(t *testing.T, m Model, msg tea.Msg) (Model, tea.Cmd) {
	t.Helper()
	n, cmd := m.Update(msg)
	return n.(Model), cmd
}

// agentLines are the agents in the order the console shows them.
func agentLines(m Model) []string {
	var out []string
	for _, l := range strings.Split(m.View(), "\n") {
		f := strings.Fields(strings.TrimLeft(l, "▸ "))
		if len(f) >= 3 && f[0] != "#" && !strings.Contains(l, "└") && strings.HasPrefix(f[2], "agent-") {
			out = append(out, f[2])
		}
	}
	return out
}

// The console ranks as detect.RankAgents ranks (it renders the one
// ranking, it does not decide its own), follows updates and withdrawals.
func TestFleetRanksAsTheTriageRanking(t *testing.T) {
	b := NewBoard()
	fs := []detect.Finding{
		finding("1", "agent-a", "anomalous-rate", detect.SeverityLow, 1),
		finding("2", "agent-a", "loop-around-denials", detect.SeverityLow, 2),
		finding("3", "agent-a", "boundary-probing", detect.SeverityLow, 3),
		finding("4", "agent-b", "credential-access", detect.SeverityHigh, 4),
		finding("5", "agent-c", "destination-expansion", detect.SeverityMedium, 5),
		finding("6", "agent-c", "boundary-probing", detect.SeverityMedium, 6),
	}
	for _, f := range fs {
		b.Apply(f, Created)
	}
	b.SetStatus("") // the feed read the stream: live
	m := newModel(t, b, Options{Source: "CORDON_FINDINGS"})
	var want []string
	for _, r := range detect.RankAgents(detect.RankInput{Findings: fs}) {
		want = append(want, r.Agent)
	}
	if got := agentLines(m); strings.Join(got, ",") != strings.Join(want, ",") || want[0] != "agent-b" {
		t.Fatalf("agents shown %v, the ranking says %v\n%s", got, want, m.View())
	}
	// agent-a's finding grows to critical: it goes first
	up := fs[0]
	up.Severity = detect.SeverityCritical
	b.Apply(up, Updated)
	m, _ = update(t, m, changedMsg{})
	if got := agentLines(m); got[0] != "agent-a" {
		t.Fatalf("after the update agent-a should lead: %v", got)
	}
	// agent-b's only finding is withdrawn: it leaves the board
	b.Apply(fs[3], Withdrawn)
	m, _ = update(t, m, changedMsg{})
	if got := agentLines(m); strings.Join(got, ",") != "agent-a,agent-c" {
		t.Fatalf("after the withdrawal: %v", got)
	}
	if s := m.View(); !strings.Contains(s, "2 agents · 5 findings · live") {
		t.Fatalf("title does not count the board:\n%s", s)
	}
}

// What an agent holds, as its watcher published it, ranks it as the
// incident's capability sets would: an agent that holds an acquired
// credential with no end recorded goes above one with a graver finding
// and nothing held, its line says what it acquired, and a holding the
// watcher deleted takes that back.
func TestFleetRanksWithHoldings(t *testing.T) {
	b := NewBoard()
	fs := []detect.Finding{
		finding("1", "agent-a", "credential-access", detect.SeverityHigh, 1),
		finding("2", "agent-b", "boundary-probing", detect.SeverityLow, 2),
	}
	for _, f := range fs {
		b.Apply(f, Created)
	}
	b.SetStatus("")
	held := capability.Holding{Acquired: map[capability.Kind]int{capability.Credential: 2, capability.DataOut: 1}, Unended: true, BytesOut: 4096}
	b.ApplyHolding("agent-b", held, nil)
	m := newModel(t, b, Options{})
	want := detect.RankAgents(detect.RankInput{Findings: fs, Holdings: map[string]capability.Holding{"agent-b": held}})
	if got := agentLines(m); strings.Join(got, ",") != "agent-b,agent-a" || want[0].Agent != "agent-b" {
		t.Fatalf("agents shown %v, the ranking says %v\n%s", got, want, m.View())
	}
	if v := m.View(); !strings.Contains(v, "acquired 2 credentials") || !strings.Contains(v, "sent 4.0 KiB out") {
		t.Fatalf("agent-b's line does not say what it acquired:\n%s", v)
	}
	b.ApplyHolding("agent-b", capability.Holding{}, nil)
	m, _ = update(t, m, changedMsg{})
	if got := agentLines(m); strings.Join(got, ",") != "agent-a,agent-b" {
		t.Fatalf("after agent-b's holding was deleted: %v\n%s", got, m.View())
	}
	if v := m.View(); strings.Contains(v, "acquired 2 credentials") {
		t.Fatalf("a deleted holding still shows:\n%s", v)
	}
}

// An agent its harness killed ranks as its own Assessment at that kill
// says, published with its holding: contained goes below one that is
// not, and the cursor on it says the Assessment's line and who recorded
// the kill. A standing taken back (the agent runs again) is forgotten.
func TestFleetSaysContainedFromTheStanding(t *testing.T) {
	b := NewBoard()
	fs := []detect.Finding{
		finding("1", "agent-a", "credential-access", detect.SeverityHigh, 1),
		finding("2", "agent-b", "credential-access", detect.SeverityHigh, 2),
	}
	for _, f := range fs {
		b.Apply(f, Created)
	}
	b.SetStatus("")
	kill := time.Date(2026, 12, 4, 10, 5, 0, 0, time.UTC)
	held := capability.Holding{Acquired: map[capability.Kind]int{capability.Credential: 1}, Unended: true}
	b.ApplyHolding("agent-a", held, &capability.Standing{Kill: kill, By: detect.HarnessKill, Contained: true, ContainedAt: kill,
		Headline: "Contained at 2026-12-04 10:05:00Z (killed 2026-12-04 10:05:00Z)"})
	b.ApplyHolding("agent-b", held, &capability.Standing{Kill: kill, By: detect.HarnessKill, Holds: true,
		Headline: "Not contained (killed 2026-12-04 10:05:00Z): credentials live"})
	m := newModel(t, b, Options{})
	if got := agentLines(m); strings.Join(got, ",") != "agent-b,agent-a" {
		t.Fatalf("agents shown %v:\n%s", got, m.View())
	}
	reasons := map[string]string{}
	for _, r := range m.snap.Ranks {
		reasons[r.Agent] = r.Reason
	}
	if !strings.HasPrefix(reasons["agent-a"], "contained") || !strings.HasPrefix(reasons["agent-b"], "not contained") {
		t.Fatalf("the ranking's reasons: %q", reasons)
	}
	if v := m.View(); !strings.Contains(v, "not contained") || !strings.Contains(v, "contained,") && !strings.Contains(v, "contained;") {
		t.Fatalf("the lines do not say it:\n%s", v)
	}
	if l := lastLine(m.View()); !strings.Contains(l, "agent-b: Not contained (killed 2026-12-04 10:05:00Z)") || !strings.Contains(l, "harness") {
		t.Fatalf("the status line under agent-b: %s", l)
	}
	b.ApplyHolding("agent-a", held, nil)
	m, _ = update(t, m, changedMsg{})
	for _, r := range m.snap.Ranks {
		if r.Contained {
			t.Fatalf("%s still contained after its standing was taken back: %+v", r.Agent, r)
		}
	}
}

func lastLine(v string) string {
	lines := strings.Split(strings.TrimRight(v, "\n"), "\n")
	return lines[len(lines)-1]
}

// A finding applied to the board wakes the console's command, and shows.
func TestFleetNewFindingWakesTheConsole(t *testing.T) {
	b := NewBoard()
	m := newModel(t, b, Options{})
	cmd := m.Init()
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	select {
	case <-got:
		t.Fatal("the console woke with nothing applied")
	case <-time.After(50 * time.Millisecond):
	}
	b.Apply(finding("9", "agent-new", "credential-access", detect.SeverityHigh, 1), Created)
	var msg tea.Msg
	select {
	case msg = <-got:
	case <-time.After(time.Second):
		t.Fatal("the console's command did not return within 1s of a finding")
	}
	m, next := update(t, m, msg)
	if next == nil || !strings.Contains(m.View(), "agent-new") {
		t.Fatalf("the finding is not on screen (or the console stopped following):\n%s", m.View())
	}
}

// enter on a finding chooses its agent and quits to pull; an observer's
// console chooses nothing and says why.
func TestFleetEnterChoosesAndObserversCannot(t *testing.T) {
	b := NewBoard()
	b.Apply(finding("1", "agent-a", "credential-access", detect.SeverityHigh, 1), Created)
	b.Apply(finding("2", "agent-b", "boundary-probing", detect.SeverityLow, 2), Created)
	enter := tea.KeyMsg{Type: tea.KeyEnter}
	down := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'j'}}

	m := newModel(t, b, Options{})
	m, _ = update(t, m, down) // agent-a's finding
	m, cmd := update(t, m, enter)
	s, ok := m.Chosen()
	if !ok || s.Agent != "agent-a" || s.Finding.ID != "1" {
		t.Fatalf("chosen %+v, %v", s, ok)
	}
	if cmd == nil {
		t.Fatal("enter did not quit to pull")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatal("enter did not quit to pull")
	}
	if _, ok := m.Resume().Chosen(); ok {
		t.Fatal("Resume kept the choice")
	}

	// findings of no agent: nothing to pull by agent
	nb := NewBoard()
	nb.Apply(finding("7", "", "credential-misuse", detect.SeverityHigh, 1), Created)
	nobody := newModel(t, nb, Options{})
	nobody, cmd = update(t, nobody, enter)
	if _, ok := nobody.Chosen(); ok || cmd != nil || !strings.Contains(nobody.View(), "name no agent") {
		t.Fatalf("enter on findings of no agent chose one:\n%s", nobody.View())
	}

	ro := newModel(t, b, Options{ReadOnly: true})
	ro, cmd = update(t, ro, enter)
	if _, ok := ro.Chosen(); ok || cmd != nil {
		t.Fatal("an observer's console chose an incident to pull")
	}
	if !strings.Contains(ro.View(), "read-only console") {
		t.Fatalf("the observer is not told why:\n%s", ro.View())
	}
}

// Agents name themselves: what they wrote reaches the terminal escaped.
func TestFleetHostileAgentNameIsEscaped(t *testing.T) {
	b := NewBoard()
	evil := "agent-x\x1b]0;owned\x07\x1b[2J\u202e"
	f := finding("1", evil, "credential-access\x1b[31m", detect.SeverityHigh, 1)
	f.Title = "title\x1b[1;1H\r\n"
	b.Apply(f, Created)
	m := newModel(t, b, Options{})
	s := m.View()
	if strings.ContainsAny(s, "\x1b\x07\r\u202e") {
		t.Fatalf("a control from the bus reached the terminal: %q", s)
	}
	if !strings.Contains(s, `agent-x\x1b]0;owned`) {
		t.Fatalf("the agent's name is not shown escaped: %q", s)
	}
}

// A finding applied between building the console and starting it (the
// program calls Init later) still wakes it: the bug was a console that
// took the board's channel in Init, after its snapshot, and stayed empty.
func TestFleetFindingBeforeInitIsNotLost(t *testing.T) {
	b := NewBoard()
	m := newModel(t, b, Options{})
	b.Apply(finding("1", "agent-early", "credential-access", detect.SeverityHigh, 1), Created)
	cmd := m.Init()
	got := make(chan tea.Msg, 1)
	go func() { got <- cmd() }()
	select {
	case msg := <-got:
		m, _ = update(t, m, msg)
	case <-time.After(time.Second):
		t.Fatal("a finding applied before Init did not wake the console")
	}
	if !strings.Contains(m.View(), "agent-early") {
		t.Fatalf("the finding is not on screen:\n%s", m.View())
	}
}
