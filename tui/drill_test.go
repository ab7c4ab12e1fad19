package tui_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/cordon-ir/cordon/drill"
	"github.com/cordon-ir/cordon/tui"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/cordon-ir/cordon/tui/drillpane"
	"github.com/muesli/termenv"
)

// drillConsole is a console running the persistence-after-kill drill on a
// wall clock the test moves; the drill advances only on tick().
type drillConsole struct {
	*console
	d    *drill.Drill
	wall *time.Time
	out  string
}

func newDrillConsole(t *testing.T, facilitator bool, w, h int, setup ...func(wsDir string)) *drillConsole {
	t.Helper()
	return newDrillConsoleWith(t, facilitator, w, h, nil, setup...)
}

// newDrillConsoleWith is newDrillConsole with options changed by opts.
func newDrillConsoleWith(t *testing.T, facilitator bool, w, h int, opts func(*incident.HandleOptions, *tui.Options), setup ...func(wsDir string)) *drillConsole {
	t.Helper()
	s, err := drill.Load(filepath.Join("..", "sample-incidents", "persistence-after-kill"))
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Date(2030, 1, 1, 9, 0, 0, 0, time.UTC)
	out := t.TempDir()
	for _, f := range setup {
		f(filepath.Join(out, "workspace"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	d, err := drill.Start(ctx, s, filepath.Join(out, "workspace"), func() time.Time { return wall })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	ho := incident.HandleOptions{Name: "drill " + s.Scenario, Actor: testActor}
	o := tui.Options{Renderer: r, Dark: true, Ctx: ctx, JournalPoll: -1,
		Drill: d, DrillFacilitator: facilitator, DrillDebrief: out, DrillEvery: -1}
	if opts != nil {
		opts(&ho, &o)
	}
	m := tui.New(caseOf(t, d.WS, ho), o)
	c := &console{t: t, m: m}
	c.send(tea.WindowSizeMsg{Width: w, Height: h})
	c.run(m.Init())
	return &drillConsole{console: c, d: d, wall: &wall, out: out}
}

// pass lets wall time pass and ticks the drill once.
func (c *drillConsole) pass(d time.Duration) {
	*c.wall = c.wall.Add(d)
	c.send(drillpane.AdvanceMsg{})
}

func (c *drillConsole) hits() uint64 {
	c.t.Helper()
	n, ok := c.m.Timeline().Hits()
	if !ok {
		c.t.Fatal("the timeline has no hit count")
	}
	return n
}

// noFuture: nothing in the index is later than scenario time.
func (c *drillConsole) noFuture() {
	c.t.Helper()
	if last, now := c.d.WS.Counts().Last, c.d.Clock.Now(); last.After(now) {
		c.t.Fatalf("the index holds an event at %s, after scenario time %s", last, now)
	}
}

func (c *drillConsole) journal(typ journal.EntryType) []journal.Entry {
	c.t.Helper()
	var out []journal.Entry
	for _, e := range entries(c.t.(*testing.T), c.d.WS) {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// TestDrillEvidenceArrivesWithScenarioTime: paused, nothing new arrives;
// running, the timeline grows as scenario time passes and never holds an
// event from the future; J brings the first inject to the status bar.
func TestDrillEvidenceArrivesWithScenarioTime(t *testing.T) {
	c := newDrillConsole(t, true, 120, 40)
	start := c.hits()
	c.noFuture()
	if !c.m.Drill().Paused() || !strings.Contains(c.screen(), "DRILL ⏸ paused 13:18:04") {
		t.Fatalf("the drill does not start paused:\n%s", c.screen())
	}
	c.pass(time.Minute)
	if c.hits() != start {
		t.Fatalf("paused, the timeline grew from %d to %d", start, c.hits())
	}

	c.keys("p")
	prev := start
	for range 5 {
		c.pass(10 * time.Second) // ten scenario minutes at ×60
		c.noFuture()
		if c.hits() < prev {
			t.Fatalf("the timeline shrank from %d to %d", prev, c.hits())
		}
		prev = c.hits()
	}
	if prev <= start {
		t.Fatalf("50 scenario minutes later the timeline still shows %d events", prev)
	}
	if s := c.screen(); !strings.Contains(s, "DRILL ▶ running 14:08:04") || !strings.Contains(s, fmt.Sprint(prev)+" events") {
		t.Errorf("the header does not follow the drill:\n%s", s)
	}
	if len(c.journal(journal.EntryDrillInject)) != 0 || c.m.Drill().Notice() != "" {
		t.Fatal("an inject fired before its time")
	}

	c.keys("J")
	c.noFuture()
	if c.hits() <= prev {
		t.Errorf("the jump to 14:21:03 released nothing (%d events)", c.hits())
	}
	s := c.screen()
	if !strings.Contains(s, "INJECT 14:21:03 On-call") || !strings.Contains(s, "next inject 14:35:00 in 13m57s") {
		t.Errorf("the status bar lacks the inject or the countdown:\n%s", s)
	}
	if in := c.journal(journal.EntryDrillInject); len(in) != 1 || !strings.Contains(in[0].Text, "I killed agent-21's session") {
		t.Errorf("journal injects: %+v", in)
	}
	c.keys("D")
	if c.m.Drill().Notice() != "" || strings.Contains(c.screen(), "INJECT 14:21:03") {
		t.Error("D did not dismiss the inject")
	}
}

// TestDrillFacilitatorKeys: p runs and stops the clock, + and - step the
// speed, J jumps to the next inject, E ends the drill and writes the
// debrief next to the workspace.
func TestDrillFacilitatorKeys(t *testing.T) {
	c := newDrillConsole(t, true, 80, 24)
	c.keys("p")
	if c.d.Clock.Paused() {
		t.Fatal("p did not start the clock")
	}
	c.keys("p")
	if !c.d.Clock.Paused() {
		t.Fatal("p did not pause the clock")
	}
	for _, step := range []struct {
		key  string
		want float64
	}{{"+", 120}, {"+", 300}, {"+", 600}, {"+", 600}, {"-", 300}, {"-", 120}, {"-", 60}, {"-", 10}, {"-", 1}, {"-", 1}} {
		c.keys(step.key)
		if got := c.d.Clock.Speed(); got != step.want {
			t.Fatalf("%s: speed %g, want %g", step.key, got, step.want)
		}
	}
	if text, _ := c.m.Status(); !strings.Contains(text, "drill speed ×1") {
		t.Errorf("status after -: %q", text)
	}
	c.keys("J", "J")
	if got := c.d.Clock.Now().Format("15:04:05"); got != "14:35:00" {
		t.Errorf("two jumps land at %s, want the second inject's 14:35:00", got)
	}
	if n := len(c.journal(journal.EntryDrillInject)); n != 2 {
		t.Errorf("%d injects journaled after two jumps", n)
	}

	c.keys("E")
	if !c.m.Prompt().IsOpen() {
		t.Fatal("E does not ask before ending the drill")
	}
	c.typeText("no")
	c.keys("enter")
	if c.d.Clock.Ended() {
		t.Fatal("the drill ended without a yes")
	}
	c.keys("E")
	c.typeText("yes")
	c.keys("enter")
	if !c.d.Clock.Ended() {
		t.Fatal("E did not end the drill")
	}
	path := filepath.Join(c.out, "debrief.md")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no debrief: %v", err)
	}
	if text, err := c.m.Status(); err != nil || !strings.Contains(text, "debrief written to "+path) {
		t.Errorf("status %q %v", text, err)
	}
	if n := len(c.journal(journal.EntryDrillInject)); n != 4 {
		t.Errorf("%d injects journaled after the end, want all 4", n)
	}
	if s := c.screen(); !strings.Contains(s, "■ ended 15:21:06") || !strings.Contains(s, "INJECT 15:02:50") {
		t.Errorf("the bar after the end:\n%s", s)
	}
	c.noFuture()
}

// TestDrillParticipantCannotRunTheClock: a participant's p, +, -, J and E
// say why they do nothing, and nothing changes.
func TestDrillParticipantCannotRunTheClock(t *testing.T) {
	c := newDrillConsole(t, false, 80, 24)
	before := c.d.Clock.Now()
	for _, k := range []string{"p", "+", "-", "J", "E"} {
		c.keys(k)
		if text, _ := c.m.Status(); !strings.Contains(text, "disabled: the facilitator runs the drill's clock") {
			t.Errorf("%s: status %q", k, text)
		}
		if c.m.Prompt().IsOpen() {
			t.Fatalf("%s opened the input", k)
		}
	}
	if !c.d.Clock.Paused() || c.d.Clock.Speed() != 60 || !c.d.Clock.Now().Equal(before) || c.d.Clock.Ended() {
		t.Error("a participant's keys changed the clock")
	}
	if s := c.screen(); strings.Contains(s, "next inject") {
		t.Errorf("a participant sees the countdown:\n%s", s)
	}
	if len(c.journal(journal.EntryDrillInject)) != 0 {
		t.Error("a participant's key fired an inject")
	}
}

// TestDrillAnswers: enter in the Questions pane answers the selected
// question through the journal; the last answer counts.
func TestDrillAnswers(t *testing.T) {
	c := newDrillConsole(t, false, 80, 24)
	for c.m.Focus() != "questions" {
		c.keys("tab")
	}
	c.keys("enter")
	if !c.m.Prompt().IsOpen() || c.m.Prompt().Ask().Step != "which-agent" {
		t.Fatalf("enter does not ask for the first question's answer: %+v", c.m.Prompt().Ask())
	}
	c.typeText("agent-17")
	c.keys("enter")
	c.keys("enter")
	if v := c.m.Prompt().Value(); v != "agent-17" {
		t.Errorf("the input does not start from the current answer: %q", v)
	}
	c.keys("esc")
	c.keys("enter")
	for range len("agent-17") {
		c.send(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	c.typeText("agent-21")
	c.keys("enter")
	answers := c.journal(journal.EntryDrillAnswer)
	if len(answers) != 2 || answers[1].Actor.Name != "alice" {
		t.Fatalf("journal answers: %+v", answers)
	}
	if q, a, _ := drill.AnswerOf(answers[1]); q != "which-agent" || a != "agent-21" {
		t.Errorf("the last answer is %s=%s", q, a)
	}
	if a, ok := c.m.Drill().Answer("which-agent"); !ok || a != "agent-21" {
		t.Errorf("the pane shows %q", a)
	}
	s := c.screen()
	if !strings.Contains(s, "answer: agent-21  (alice, 13:18:04)") || !strings.Contains(s, "1/6 answered") {
		t.Errorf("the pane lacks the answer:\n%s", s)
	}
	c.keys("j", "enter")
	c.keys("enter") // an empty answer is not recorded
	if n := len(c.journal(journal.EntryDrillAnswer)); n != 2 {
		t.Errorf("an empty answer was journaled (%d answers)", n)
	}
}

// TestDrillActionsAreDryRuns: in a drill, a confirmed kill-switch action
// runs nothing and the journal records a dry run.
func TestDrillActionsAreDryRuns(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	c := newDrillConsole(t, true, 80, 24, func(dir string) {
		yaml := fmt.Sprintf("actions:\n  stop-session:\n    title: Stop the session\n    run: touch %s\n", marker)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	c.keys("J") // agent-21's evidence is out by the first inject
	if _, err := c.d.WS.SetSubject(context.Background(), testActor, []string{"agent-21"}); err != nil {
		t.Fatal(err)
	}
	c.send(common.WrittenMsg{Text: "subject named"}) // the console reads the journal again
	c.console.toPlaybook("contain.stop")
	c.keys("enter")
	for range 20 {
		if strings.Contains(c.screen(), "▸▶ stop-session") {
			break
		}
		c.keys("j")
	}
	c.keys("enter")
	s := c.screen()
	if !c.m.Prompt().IsOpen() || !strings.Contains(s, "dry-run stop-session") || !strings.Contains(s, "a dry run, nothing runs") {
		t.Fatalf("the action does not say it is a dry run:\n%s", s)
	}
	c.typeText("agent-21")
	c.keys("enter")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a drill ran the action")
	}
	runs := c.journal(journal.EntryActionRun)
	if len(runs) != 1 || !strings.Contains(runs[0].Text, "(dry run)") || !strings.Contains(string(runs[0].Payload), `"dry_run":true`) {
		t.Fatalf("journal: %+v", runs)
	}
	if text, err := c.m.Status(); err != nil || !strings.Contains(text, "dry run") {
		t.Errorf("status %q %v", text, err)
	}
}

// TestGoldenDrill: the drill's status bar over the Questions pane, after
// the first inject and an answer, on the fake wall clock.
func TestGoldenDrill(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		t.Run(fmt.Sprintf("questions-%dx%d", w, h), func(t *testing.T) {
			c := newDrillConsole(t, true, w, h)
			c.keys("J")
			for c.m.Focus() != "questions" {
				c.keys("tab")
			}
			c.keys("enter")
			c.typeText("agent-21")
			c.keys("enter", "j")
			s := c.screen()
			checkSize(t, s, w, h)
			requireGolden(t, s)
		})
	}
}

// TestDrillAssistantIsOffline: even with an endpoint configured, a drill's
// assistant answers by rules, so that the drill replays identically and no
// scenario evidence leaves the machine.
func TestDrillAssistantIsOffline(t *testing.T) {
	c := newDrillConsoleWith(t, true, 120, 40, func(ho *incident.HandleOptions, _ *tui.Options) {
		ho.Assistant = &assist.Config{BaseURL: "http://127.0.0.1:9/v1", Model: "m", APIKey: "sk-x", Timeout: time.Second}
	})
	c.keys("p")
	c.pass(20 * time.Minute)
	c.keys("a", "enter")
	if s := c.flatScreen(); !strings.Contains(s, "offline answer (no endpoint configured)") {
		t.Errorf("the drill's assistant asked a model:\n%s", c.screen())
	}
}
