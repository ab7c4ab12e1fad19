package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/muesli/termenv"
)

func TestOpenLoadsFirstPageAndCounts(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	tl := c.m.Timeline()
	if n := len(tl.Rows()); n != 74 {
		t.Fatalf("first window holds %d rows, want all 74", n)
	}
	if hits, ok := tl.Hits(); !ok || hits != 74 {
		t.Errorf("hits %d %v", hits, ok)
	}
	if ev, _ := tl.Selected(); ev.Kind != "session_start" || ev.Agent != "agent-3" {
		t.Errorf("cursor starts on %s %s, want the first event", ev.Agent, ev.Kind)
	}
	if !strings.Contains(c.screen(), "74 events") {
		t.Errorf("header lacks the count:\n%s", c.screen())
	}
}

func TestMoveAndOpenEvent(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("j", "j", "down")
	ev, _ := c.m.Timeline().Selected()
	if ev.Kind != "policy_decision" {
		t.Fatalf("after 3 moves the cursor is on %s", ev.Kind)
	}
	cmd := c.step(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("enter returns no command")
	}
	msg := cmd()
	open, ok := msg.(common.OpenEventMsg)
	if !ok || open.Event.ID != ev.ID {
		t.Fatalf("enter sends %T %+v, want OpenEventMsg for %s", msg, msg, ev.ID)
	}
	c.send(msg)
	if c.m.Focus() != "event" || c.m.Detail().Event().ID != ev.ID {
		t.Fatalf("focus %s, detail shows %s", c.m.Focus(), c.m.Detail().Event().ID)
	}
	if s := c.screen(); !strings.Contains(s, "policy           bash.default-allow") {
		t.Errorf("detail lacks the policy field:\n%s", s)
	}
	c.keys("esc")
	if c.m.Focus() != "timeline" {
		t.Errorf("esc from the event returns to %s", c.m.Focus())
	}
}

// TestGroupedKeys: keys that arrive in one read ("jjj" over a slow SSH
// link) are separate presses outside an input.
func TestGroupedKeys(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jjj")})
	if ev, _ := c.m.Timeline().Selected(); ev.Kind != "policy_decision" {
		t.Errorf("jjj lands on %s", ev.Kind)
	}
}

// TestEscThenKeyInOneRead: esc and the next key in one read arrive as
// alt+key; the console takes them as the two presses they were.
func TestEscThenKeyInOneRead(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("enter")
	if c.m.Focus() != "event" {
		t.Fatalf("focus %s", c.m.Focus())
	}
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j"), Alt: true})
	if c.m.Focus() != "timeline" {
		t.Fatalf("esc+j left focus on %s", c.m.Focus())
	}
	if ev, _ := c.m.Timeline().Selected(); ev.Kind != "prompt" {
		t.Errorf("esc+j: the j went to the event pane, cursor on %s", ev.Kind)
	}
}

// TestEscThenTabInOneRead: esc closing the search bar and tab arrive
// together (tmux send-keys, a slow link): the bar closes and tab moves on.
func TestEscThenTabInOneRead(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("/")
	c.send(tea.KeyMsg{Type: tea.KeyTab, Alt: true})
	if s := c.screen(); c.m.Focus() != "agents" || strings.Contains(s, "\n/") {
		t.Errorf("esc+tab: focus %s:\n%s", c.m.Focus(), s)
	}
}

func TestSearchReplacesTimeline(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("/")
	c.typeText("curl q")
	if c.quit {
		t.Fatal("q quit while typing a query")
	}
	c.send(tea.KeyMsg{Type: tea.KeyBackspace})
	c.send(tea.KeyMsg{Type: tea.KeyBackspace})
	c.keys("enter")
	tl := c.m.Timeline()
	if tl.Search() != "curl" {
		t.Fatalf("search %q", tl.Search())
	}
	if hits, _ := tl.Hits(); hits != 2 || len(tl.Rows()) != 2 {
		t.Fatalf("curl: %d hits, %d rows", hits, len(tl.Rows()))
	}
	for _, ev := range tl.Rows() {
		if !strings.Contains(ev.Cmdline, "curl") {
			t.Errorf("row %s does not match", ev.Message)
		}
	}
	if s := c.screen(); !strings.Contains(s, "2 hits · search: curl") {
		t.Errorf("header lacks the query and hit count:\n%s", s)
	}
	// history: ↑ brings the last query back
	c.keys("/", "up")
	if !strings.Contains(c.screen(), "/curl") {
		t.Errorf("history up:\n%s", c.screen())
	}
	c.keys("esc", "esc")
	if tl := c.m.Timeline(); tl.Search() != "" || len(tl.Rows()) != 74 {
		t.Errorf("esc leaves search %q and %d rows", tl.Search(), len(tl.Rows()))
	}
	// n finds the next match of the last search from the cursor
	c.keys("g", "n")
	if ev, _ := c.m.Timeline().Selected(); !strings.Contains(ev.Cmdline, "curl") {
		t.Errorf("n lands on %q", ev.Message)
	}
}

func TestBadQueryKeepsTimeline(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("/")
	c.typeText(`agent:"unterminated`)
	c.keys("enter")
	_, err := c.m.Status()
	if err == nil || !strings.Contains(err.Error(), "bad query") {
		t.Fatalf("status error %v", err)
	}
	if tl := c.m.Timeline(); tl.Search() != "" || len(tl.Rows()) != 74 {
		t.Errorf("bad query left search %q and %d rows", tl.Search(), len(tl.Rows()))
	}
	if !strings.Contains(c.screen(), "error: bad query") {
		t.Errorf("error not on screen:\n%s", c.screen())
	}
	c.keys("esc")
	if _, err := c.m.Status(); err != nil {
		t.Errorf("esc did not dismiss %v", err)
	}
}

// TestStaleReplyDropped: a slow reply to an older search must not replace
// the results of a newer one.
func TestStaleReplyDropped(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("/")
	c.typeText("curl")
	first := c.step(keyMsg("enter")) // SubmitMsg
	firstRun := c.step(first())      // the search's commands, not yet run
	c.keys("/")
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	c.typeText("nohup")
	c.keys("enter")
	c.run(firstRun) // the old replies arrive last
	tl := c.m.Timeline()
	if tl.Search() != "nohup" {
		t.Fatalf("search %q", tl.Search())
	}
	for _, ev := range tl.Rows() {
		if !strings.Contains(ev.Cmdline, "nohup") {
			t.Errorf("stale row %q shown for nohup", ev.Message)
		}
	}
	if hits, _ := tl.Hits(); hits != 1 {
		t.Errorf("hits %d, want nohup's 1", hits)
	}
}

func TestQuit(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("q")
	if !c.quit {
		t.Error("q does not quit")
	}
}

func TestAgentsFilterTimeline(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("tab")
	if c.m.Focus() != "agents" {
		t.Fatalf("tab focuses %s", c.m.Focus())
	}
	a := c.m.Agents().Agents()
	if len(a) != 2 || a[0].Agent != "agent-7" || a[0].Denied != 15 || a[0].IP != "10.0.3.7" {
		t.Fatalf("agents %+v", a)
	}
	if s := c.screen(); !strings.Contains(s, "agent-7") || !strings.Contains(s, "!15") {
		t.Errorf("agents pane:\n%s", s)
	}
	c.keys("enter")
	if s := c.screen(); !strings.Contains(s, "agent-7 — sessions and capabilities") || !strings.Contains(s, "every event of agent-7") {
		t.Fatalf("enter does not open agent-7's profile:\n%s", s)
	}
	c.keys("enter")
	tl := c.m.Timeline()
	if c.m.Focus() != "timeline" || tl.Filter().String() != "agent:agent-7" {
		t.Fatalf("focus %s filter %q", c.m.Focus(), tl.Filter())
	}
	if hits, _ := tl.Hits(); hits != 51 {
		t.Errorf("agent-7 hits %d", hits)
	}
}

func TestFacetAddsFilter(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("f")
	for i, f := range evidence.FacetFields() {
		if f == "decision" {
			for range i {
				c.keys("j")
			}
		}
	}
	c.keys("enter")
	s := c.screen()
	if !strings.Contains(s, "FILTER BY decision") || !strings.Contains(s, "15  deny") {
		t.Fatalf("decision values:\n%s", s)
	}
	c.keys("enter") // the most frequent value, deny
	tl := c.m.Timeline()
	if tl.Filter().String() != "decision:deny" {
		t.Fatalf("filter %q", tl.Filter())
	}
	if hits, _ := tl.Hits(); hits != 15 {
		t.Errorf("deny hits %d", hits)
	}
}

func TestMarkAndJump(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.keys("j", "j", "m")
	marked, _ := c.m.Timeline().Selected()
	if _, err := os.Stat(filepath.Join(ws.Dir, "marks.json")); err != nil {
		t.Fatalf("marks.json: %v", err)
	}
	if !strings.Contains(c.screen(), "▸*") {
		t.Errorf("marked row has no glyph:\n%s", c.screen())
	}
	c.keys("G", "'")
	if ev, _ := c.m.Timeline().Selected(); ev.ID != marked.ID {
		t.Errorf("' lands on %s, want the mark %s", ev.ID, marked.ID)
	}
}

func TestToggleRelativeTime(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("t")
	if s := c.screen(); !strings.Contains(s, "+00:00:00.000") || !strings.Contains(s, "+00:07:50.000") {
		t.Errorf("relative times:\n%s", s)
	}
	c.keys("t")
	if s := c.screen(); !strings.Contains(s, "09:52:10.000") {
		t.Errorf("absolute times:\n%s", s)
	}
}

func TestHelpFromKeyMap(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("?")
	s := c.screen()
	for _, want := range []string{"next match", "filter by field", "mark event", "absolute/relative time"} {
		if !strings.Contains(s, want) {
			t.Errorf("help lacks %q:\n%s", want, s)
		}
	}
	c.keys("q")
	if c.quit || strings.Contains(c.screen(), "filter by field  ") {
		t.Error("q should close help, not quit")
	}
}

func TestMouseWheelScrolls(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.send(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if ev, _ := c.m.Timeline().Selected(); ev.ID == c.m.Timeline().Rows()[0].ID {
		t.Error("wheel did not move")
	}
}

// TestHelpScrollsOnSmallTerminal: at 80x24 the help does not fit; j and G
// bring its last lines (the panes' keys) on screen, and nothing is cut
// with "…" in the key columns.
func TestHelpScrollsOnSmallTerminal(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("?")
	s := c.screen()
	if !strings.Contains(s, "more lines: j/↓ scrolls") || !strings.Contains(s, "agent:agent-7 decision:deny") {
		t.Fatalf("first help screen:\n%s", s)
	}
	c.keys("G")
	s = c.screen()
	for _, want := range []string{"journal: by type", "event: enter opens a related event", "playbook: enter opens a step"} {
		if !strings.Contains(s, want) {
			t.Errorf("help's end lacks %q:\n%s", want, s)
		}
	}
	c.keys("esc", "?")
	if !strings.Contains(c.screen(), "KEYS") {
		t.Errorf("help reopens scrolled:\n%s", c.screen())
	}
}

// The status line says how a search was read, and hints at what it may
// not find: no silent zero.
func TestSearchReadingInStatusLine(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 120, 40, termenv.Ascii)
	c.keys("/")
	c.typeText("agent:agent-7 decision:deny")
	c.keys("enter")
	header := strings.Split(c.screen(), "\n")[1]
	if !strings.Contains(header, "read as: agent:agent-7 AND decision:deny") {
		t.Errorf("header does not say how the search was read: %q", header)
	}
	if n, ok := c.m.Timeline().Hits(); !ok || n == 0 || n > 20 {
		t.Errorf("agent-7's denials: %d hits (%v)", n, ok)
	}
	if !strings.Contains(c.screen(), "the old syntax read this as agent:agent-7 OR decision:deny") {
		t.Errorf("no hint of the old reading:\n%s", c.screen())
	}
	c.keys("esc", "/") // esc clears the search: the bar opens empty
	c.typeText("nosuchfield:foo")
	c.keys("enter")
	if _, err := c.m.Status(); err == nil || !strings.Contains(err.Error(), `unknown field "nosuchfield"`) {
		t.Errorf("unknown field: status error %v", err)
	}
	c.keys("esc", "esc", "/")
	c.typeText("agent:AGENT-7")
	c.keys("enter")
	if s := c.screen(); !strings.Contains(s, "agent:agent-7 has") {
		t.Errorf("no hint for a value in another case:\n%s", s)
	}
}

// The Agents pane's first load, started when the console opens, is the
// one the pane keeps: its agents are there before the pane is focused.
func TestAgentsLoadedAtOpenAreKept(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	if c.m.Focus() == "agents" {
		t.Fatal("the console opened on the Agents pane")
	}
	if n := len(c.m.Agents().Agents()); n == 0 {
		t.Error("the agents loaded at open were thrown away")
	}
}
