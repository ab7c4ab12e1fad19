package tui_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/cordon-ir/cordon/tui/config"
	"github.com/muesli/termenv"
)

// newConsoleWith opens a test console with its own handle and options.
func newConsoleWith(t *testing.T, ws *incident.Workspace, ho incident.HandleOptions, opt tui.Options) *console {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opt.Renderer, opt.Ctx, opt.JournalPoll = r, ctx, -1
	m := tui.New(caseOf(t, ws, ho), opt)
	c := &console{t: t, m: m}
	c.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	c.run(m.Init())
	return c
}

func TestCommandLineCompletes(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys(":")
	c.typeText("sub")
	c.keys("tab")
	if v := c.m.Command().Value(); v != "subject " {
		t.Fatalf("tab after sub: %q, want the verb completed", v)
	}
	c.typeText("agent-")
	c.keys("tab")
	if v := c.m.Command().Value(); !strings.HasPrefix(v, "subject agent-") || len(c.m.Command().Candidates()) == 0 && !strings.HasSuffix(v, " ") {
		t.Errorf("tab on an agent: %q, candidates %q", v, c.m.Command().Candidates())
	}
	if s := c.screen(); !strings.Contains(s, ":subject agent-") {
		t.Errorf("the line:\n%s", s)
	}
	c.keys("esc")
	c.keys(":")
	c.typeText("st")
	c.keys("tab") // step? start? only step and since/search share no prefix past s
	if v := c.m.Command().Value(); v != "step " {
		t.Errorf("tab after st: %q", v)
	}
}

func TestCommandLineHistoryAndSubject(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.keys(":")
	c.typeText("subject agent-7")
	c.keys("enter")
	if text, err := c.m.Status(); err != nil || !strings.Contains(text, "subject agent-7") {
		t.Fatalf(":subject: %q, %v", text, err)
	}
	s, err := ws.State()
	if err != nil || len(s.Subject) != 1 || s.Subject[0] != "agent-7" {
		t.Errorf("the journal's subject: %v (%v)", s.Subject, err)
	}
	c.keys(":", "up")
	if v := c.m.Command().Value(); v != "subject agent-7" {
		t.Errorf("↑ in the line: %q", v)
	}
	if h := c.m.SearchHistory(); len(h) != 0 {
		t.Errorf("a : line went into the search history: %q", h)
	}
}

func TestCommandLineRefusesObserver(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsoleWith(t, ws, incident.HandleOptions{ReadOnly: true, Actor: journal.Actor{Name: "eve", Via: journal.ViaSSH}}, tui.Options{Remote: true})
	before, _ := ws.State()
	for _, line := range []string{"subject agent-7", "step done detect.signal", "note hello", "check", "report md"} {
		c.keys(":")
		c.typeText(line)
		c.keys("enter")
		if text, _ := c.m.Status(); !strings.Contains(text, "refused") || !strings.Contains(text, "observers cannot change the case") {
			t.Errorf(":%s as an observer: %q", line, text)
		}
	}
	after, _ := ws.State()
	if after.Entries != before.Entries {
		t.Errorf("the journal grew from %d to %d entries", before.Entries, after.Entries)
	}
	// what only moves the console works for an observer
	c.keys(":")
	c.typeText("goto 10:00")
	c.keys("enter")
	if ev, ok := c.m.Timeline().Selected(); !ok || ev.Time.UTC().Format("15:04") < "10:00" {
		t.Errorf(":goto 10:00 selects %v", ev.Time)
	}
}

func TestReportOverSSHGoesIntoExports(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsoleWith(t, ws, incident.HandleOptions{Actor: journal.Actor{Name: "bob", Via: journal.ViaSSH}}, tui.Options{Remote: true})
	outside := filepath.Join(t.TempDir(), "r.md")
	c.keys(":")
	c.typeText("report md " + outside)
	c.keys("enter")
	if text, _ := c.m.Status(); !strings.Contains(text, "refused over SSH") {
		t.Errorf(":report md FILE over SSH: %q", text)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("the report was written where the remote user said")
	}
	c.keys(":")
	c.typeText("report md")
	c.keys("enter")
	text, err := c.m.Status()
	if err != nil || !strings.Contains(text, filepath.Join(ws.Dir, incident.ExportsDir)) {
		t.Fatalf(":report md: %q, %v", text, err)
	}
	files, _ := filepath.Glob(filepath.Join(ws.Dir, incident.ExportsDir, "report-*.md"))
	if len(files) != 1 {
		t.Fatalf("exports holds %q", files)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), "#") {
		t.Errorf("the report is %d bytes: %.200s", len(b), b)
	}
}

func TestConfigAliasesAndSavedSearches(t *testing.T) {
	cfg, err := config.Parse([]byte("aliases:\n  probes: search decision:deny\nsearches:\n  curls: curl\nkeys:\n  next_denial: [\"D\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := newConsoleWith(t, incidenttest.New(t), incident.HandleOptions{Actor: testActor}, tui.Options{Config: &cfg})
	c.keys(":")
	c.typeText("probes")
	c.keys("enter")
	if got := c.m.Timeline().Search(); got != "decision:deny" {
		t.Errorf(":probes searched %q", got)
	}
	c.keys(":")
	c.typeText("search curls")
	c.keys("enter")
	if got := c.m.Timeline().Search(); got != "curl" {
		t.Errorf(":search curls searched %q", got)
	}
	c.keys("esc")
	c.keys("D")
	if ev, ok := c.m.Timeline().Selected(); !ok || ev.Decision != "deny" {
		t.Errorf("D (remapped next denial) selects %+v", ev)
	}
}

func TestBadConfigSaysWhyAndKeepsDefaults(t *testing.T) {
	cfg := config.Config{Keys: map[string][]string{"serch": {"s"}}, Path: "/x/config.yaml"}
	c := newConsoleWith(t, incidenttest.New(t), incident.HandleOptions{Actor: testActor}, tui.Options{Config: &cfg})
	if _, err := c.m.Status(); err == nil || !strings.Contains(err.Error(), `no binding "serch"`) || !strings.Contains(err.Error(), "/x/config.yaml") {
		t.Errorf("a bad key name: %v", err)
	}
	c.keys("esc", "/")
	if !strings.Contains(c.screen(), "/") {
		t.Error("/ no longer searches")
	}
}

func TestNoteShowsWhenItsEventIsOpened(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys("j", "j", ":")
	c.typeText("note the agent read the token here")
	c.keys("enter")
	if _, err := c.m.Status(); err != nil {
		t.Fatal(err)
	}
	c.keys("enter")
	if s := c.screen(); !strings.Contains(s, "NOTES (1, from the journal)") || !strings.Contains(s, "the agent read the token here") {
		t.Errorf("the event view:\n%s", s)
	}
}

func TestJumpsToDenialsAndMarksBothWays(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 120, 40, termenv.Ascii)
	c.keys("]")
	first, _ := c.m.Timeline().Selected()
	if first.Decision != "deny" {
		t.Fatalf("] selects %s %s", first.Kind, first.Decision)
	}
	c.keys("]")
	second, _ := c.m.Timeline().Selected()
	if second.Decision != "deny" || !second.Time.After(first.Time) && second.ID == first.ID {
		t.Errorf("] again selects %+v", second)
	}
	c.keys("[")
	if back, _ := c.m.Timeline().Selected(); back.ID != first.ID {
		t.Errorf("[ goes to %s, want %s", back.ID, first.ID)
	}
	c.keys("m", "]", "m", "g")
	c.keys("\"")
	if ev, _ := c.m.Timeline().Selected(); ev.ID != second.ID {
		t.Errorf("\" from the top goes to %s, want the last mark %s", ev.ID, second.ID)
	}
	c.keys(":")
	c.typeText("marks")
	c.keys("enter")
	if rows := c.m.Sheet().Rows(); len(rows) != 2 {
		t.Errorf(":marks lists %d", len(rows))
	}
	c.keys("k", "enter") // the list opens on the mark at the cursor: the second

	if ev, _ := c.m.Timeline().Selected(); ev.ID != first.ID {
		t.Errorf("enter on the first mark goes to %s", ev.ID)
	}
}

func TestTimeFromContainmentSaysSoInTheHeader(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 120, 40, termenv.Ascii)
	c.keys(":")
	c.typeText("time containment")
	c.keys("enter")
	if text, _ := c.m.Status(); !strings.Contains(text, "no containment time yet") {
		t.Errorf("before contain.stop: %q", text)
	}
	c.keys("j", "j", "T")
	if s := c.screen(); !strings.Contains(s, "time from event") || !strings.Contains(s, "+00:00:00.000") {
		t.Errorf("T:\n%s", s)
	}
	c.keys(":")
	c.typeText("time abs")
	c.keys("enter")
	if s := c.screen(); strings.Contains(s, "time from") {
		t.Errorf(":time abs still says relative:\n%s", s)
	}
}

func TestWalkFollowsTheCallThroughTime(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 120, 40, termenv.Ascii)
	for i := 0; i < 80; i++ {
		if ev, ok := c.m.Timeline().Selected(); ok && ev.CallID != "" {
			break
		}
		c.keys("j")
	}
	ev, _ := c.m.Timeline().Selected()
	if ev.CallID == "" {
		t.Fatal("the fixture has no call_id")
	}
	c.keys("w")
	if f := c.m.Timeline().FilterText(); !strings.Contains(f, "walk call_id "+ev.CallID) {
		t.Errorf("w: filter %q", f)
	}
	for _, row := range c.m.Timeline().Rows() {
		if row.CallID != ev.CallID {
			t.Errorf("a row of another call: %+v", row)
		}
	}
	c.keys("esc")
	if !c.m.Timeline().Filter().IsAll() {
		t.Error("esc did not leave the walk")
	}
}

func TestSearchWordsHighlightedInTimelineAndEvent(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 120, 40, termenv.ANSI256)
	c.keys("/")
	c.typeText("curl")
	c.keys("enter")
	// the hit carries the match style (reversed), on rows and in the event
	underlined := regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?7[;m][0-9;]*m?(?i:curl)`)
	if !underlined.MatchString(c.m.View()) {
		t.Errorf("the timeline does not mark curl:\n%q", c.m.View())
	}
	c.keys("enter")
	if !underlined.MatchString(c.m.View()) {
		t.Errorf("the event view does not mark curl:\n%s", c.screen())
	}
	c.keys("esc", "esc")
	if underlined.MatchString(c.m.View()) {
		t.Error("the search is cleared and curl is still marked")
	}
}

// An error line clears on the next good command: it answered the last
// one, not this.
func TestErrorClearsOnTheNextGoodCommand(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.keys(":")
	c.typeText("filter decision:")
	c.keys("enter")
	if _, err := c.m.Status(); err == nil {
		t.Fatal(":filter decision: gave no error")
	}
	c.keys(":")
	c.typeText("subject agent-7")
	c.keys("enter")
	if text, err := c.m.Status(); err != nil || !strings.Contains(text, "subject agent-7") {
		t.Errorf("after a good command: %q, %v", text, err)
	}
}
