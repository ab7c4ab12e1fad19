package journal

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/muesli/termenv"
)

func newPane(t *testing.T, j *journal.Journal, every time.Duration) Model {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	com := common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil)
	m := New(com, j, every)
	m.SetSize(100, 10)
	return m
}

// msgsOf runs cmd (batches included) and returns the messages, skipping
// ticks longer than the test wants to wait.
func msgsOf(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, msgsOf(c)...)
		}
		return out
	case nil:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

// emptyCase is a workspace with no evidence and so an empty journal: these
// tests are about the entries they write.
func emptyCase(t *testing.T) *incident.Workspace {
	t.Helper()
	ws, err := incident.Create(filepath.Join(t.TempDir(), "case"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// journalOf is ws's journal as the pane reads it: the file, opened again,
// as a console opens it beside the writers.
func journalOf(t *testing.T, ws *incident.Workspace) *journal.Journal {
	t.Helper()
	j, err := journal.Open(ws.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func note(t *testing.T, ws *incident.Workspace, who, text string) {
	t.Helper()
	if _, err := ws.Note(context.Background(), journal.Actor{Name: who, Via: journal.ViaCLI}, "", "", text); err != nil {
		t.Fatal(err)
	}
}

// TestPollFollowsOtherWriters: the tick loop reads what another process
// appended, once, and says the journal changed.
func TestPollFollowsOtherWriters(t *testing.T) {
	ws := emptyCase(t)
	note(t, ws, "alice", "first")
	m := newPane(t, journalOf(t, ws), time.Millisecond)

	var changed int
	deliver := func(msgs []tea.Msg) []tea.Msg {
		var next []tea.Msg
		for _, msg := range msgs {
			if _, ok := msg.(common.JournalChangedMsg); ok {
				changed++
				continue
			}
			var cmd tea.Cmd
			m, cmd = m.Update(msg)
			next = append(next, msgsOf(cmd)...)
		}
		return next
	}
	// Init -> tick -> poll -> (tick, verify, changed)
	msgs := deliver(msgsOf(m.Init()))
	msgs = deliver(msgs)
	msgs = deliver(msgs)
	if len(m.Entries()) != 1 || changed != 1 {
		t.Fatalf("after the first poll: %d entries, %d changes", len(m.Entries()), changed)
	}
	note(t, ws, "bob", "second, from the CLI")
	for range 6 {
		msgs = deliver(msgs)
	}
	if got := m.Shown(); len(got) != 2 || got[0].Actor.Name != "bob" {
		t.Fatalf("after polling: %+v", got)
	}
	if changed != 2 {
		t.Errorf("%d change notices, want 2", changed)
	}
	if s := ansi.Strip(m.View()); !strings.Contains(s, "chain ok, 2 entries") || !strings.Contains(s, "second, from the CLI") {
		t.Errorf("view:\n%s", s)
	}
}

// TestStalePollIsDropped: a Poll started while another is in flight wins;
// the older reply would read the same offset twice.
func TestStalePollIsDropped(t *testing.T) {
	ws := emptyCase(t)
	note(t, ws, "alice", "one")
	m := newPane(t, journalOf(t, ws), time.Hour)
	old := m.Poll()
	fresh := m.Poll()
	oldMsg, freshMsg := old(), fresh()
	m, _ = m.Update(freshMsg)
	m, cmd := m.Update(oldMsg)
	if n := len(m.Entries()); n != 1 {
		t.Errorf("%d entries after a stale reply, want 1", n)
	}
	// nor does it start a second polling loop beside the fresh one's
	if cmd != nil {
		t.Error("a stale reply schedules another poll")
	}
	// a tick of an old loop starts nothing
	if _, cmd := m.Update(tickMsg{seq: 0}); cmd != nil {
		t.Error("a stale tick polls")
	}
}

func TestTypeFilterAndBrokenChain(t *testing.T) {
	ws := emptyCase(t)
	note(t, ws, "alice", "a note")
	if _, err := ws.SetStep(context.Background(), journal.Actor{Name: "alice", Via: journal.ViaCLI}, "triage.grant", incident.StepStarted, time.Time{}, ""); err != nil {
		t.Fatal(err)
	}
	m := newPane(t, journalOf(t, ws), -1)
	for _, msg := range msgsOf(m.Poll()) {
		var cmd tea.Cmd
		m, cmd = m.Update(msg)
		for _, x := range msgsOf(cmd) {
			m, _ = m.Update(x)
		}
	}
	key := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")}
	var seen []journal.EntryType
	for range 3 {
		m, _ = m.Update(key)
		seen = append(seen, m.Type())
	}
	if seen[0] != journal.EntryNote || seen[1] != journal.EntryStepStarted || seen[2] != "" {
		t.Errorf("t cycles %v", seen)
	}

	// edit the first entry on disk: the title says where the chain broke
	path := journalOf(t, ws).Path()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), "a note", "A note", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	m, _ = m.Update(verifyMsgOf(m.verifyCmd()))
	if s := ansi.Strip(m.View()); !strings.Contains(s, "BROKEN at entry 1") {
		t.Errorf("view after tampering:\n%s", s)
	}
}

func verifyMsgOf(cmd tea.Cmd) tea.Msg { return cmd() }

// TestNoWorkspaceSaysWhy: a pane built without a journal says why it is
// empty.
func TestNoWorkspaceSaysWhy(t *testing.T) {
	m := newPane(t, nil, -1)
	if s := ansi.Strip(m.View()); !strings.Contains(s, "no incident workspace") {
		t.Errorf("journal pane:\n%s", s)
	}
}

// A journal spanning more than one day shows each entry's date, ISO 8601;
// within one day the time of day is enough.
func TestJournalShowsDatesAcrossDays(t *testing.T) {
	for _, tc := range []struct {
		second time.Time
		want   string
	}{
		{time.Date(2026, 8, 11, 11, 0, 0, 0, time.UTC), " 11:00:00 "},
		{time.Date(2026, 8, 12, 9, 0, 0, 0, time.UTC), "2026-08-12T09:00:00Z"},
	} {
		ws := emptyCase(t)
		ws.SetClock(func() time.Time { return time.Date(2026, 8, 11, 10, 0, 0, 0, time.UTC) })
		note(t, ws, "alice", "first")
		ws.SetClock(func() time.Time { return tc.second })
		note(t, ws, "alice", "second")
		m := newPane(t, journalOf(t, ws), -1)
		for _, msg := range msgsOf(m.Poll()) {
			var cmd tea.Cmd
			m, cmd = m.Update(msg)
			for _, x := range msgsOf(cmd) {
				m, _ = m.Update(x)
			}
		}
		if s := ansi.Strip(m.View()); !strings.Contains(s, tc.want) {
			t.Errorf("want %q in:\n%s", tc.want, s)
		}
	}
}
