package tui_test

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
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/muesli/termenv"
)

// toPlaybook tabs to the Playbook pane and selects step id.
func (c *console) toPlaybook(id string) {
	c.t.Helper()
	for c.m.Focus() != "playbook" {
		c.keys("tab")
	}
	for range 40 {
		if c.m.Steps().Selected() == id {
			return
		}
		c.keys("j")
	}
	c.t.Fatalf("no step %s in the playbook pane (at %s)", id, c.m.Steps().Selected())
}

// written runs cmd and returns the WrittenMsg it ends with, then delivers it.
func (c *console) written(cmd tea.Cmd) common.WrittenMsg {
	c.t.Helper()
	if cmd == nil {
		c.t.Fatal("the key returned no command")
	}
	msg := cmd()
	w, ok := msg.(common.WrittenMsg)
	if !ok {
		c.t.Fatalf("the command sent %T %+v, want WrittenMsg", msg, msg)
	}
	if w.Err != nil {
		c.t.Fatalf("write failed: %v", w.Err)
	}
	c.send(w)
	return w
}

// entries is what the test did to the case: the journal without the
// evidence the fixture's ingest received.
func entries(t *testing.T, ws *incident.Workspace) []journal.Entry {
	t.Helper()
	return incidenttest.Casework(t, ws)
}

func TestPlaybookStartDoneSkip(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 120, 40, termenv.Ascii)
	c.toPlaybook("triage.grant")

	w := c.written(c.step(keyMsg("s")))
	if !strings.Contains(w.Text, "triage.grant started") {
		t.Errorf("status %q", w.Text)
	}
	if st := c.m.Steps().State().Step("triage.grant"); st.Status != incident.StepStarted || st.By.Name != "alice" {
		t.Errorf("after s the step is %+v", st)
	}
	if s := c.screen(); !strings.Contains(s, "[>] What it knew") || !strings.Contains(s, "journal #5: triage.grant started") {
		t.Errorf("screen lacks the started step or the status:\n%s", s)
	}

	// a step without a time variable is done at once
	c.written(c.step(keyMsg("d")))
	if st := c.m.Steps().State().Step("triage.grant"); st.Status != incident.StepDone {
		t.Errorf("after d the step is %s", st.Status)
	}

	// x asks why; an empty reason skips nothing
	c.keys("j", "x")
	if !c.m.Prompt().IsOpen() || c.m.Prompt().Ask().Kind != common.AskSkip {
		t.Fatal("x opens no reason input")
	}
	c.keys("enter")
	if st := c.m.Steps().State().Step("triage.actions"); st.Status != incident.StepOpen {
		t.Errorf("skipped without a reason: %+v", st)
	}
	c.keys("x")
	c.typeText("not an agent incident, q is typed")
	if c.quit {
		t.Fatal("q in the input quit the console")
	}
	c.keys("enter")
	st := c.m.Steps().State().Step("triage.actions")
	if st.Status != incident.StepSkipped || st.Text != "not an agent incident, q is typed" {
		t.Errorf("after x the step is %+v", st)
	}
	if s := c.screen(); !strings.Contains(s, "[-] What it did") {
		t.Errorf("no skipped glyph:\n%s", s)
	}
	if n := len(entries(t, ws)); n != 3 {
		t.Errorf("%d journal entries, want 3", n)
	}
}

// TestDoneDefaultsToTheStopTheCheckFound: once the stop step's check has
// found the session's end, d offers that time, not the wall clock: an
// incident worked the next morning must not be "contained" hours late.
func TestDoneDefaultsToTheStopTheCheckFound(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/persistence-after-kill")
	c := newConsole(t, ws, 120, 40, termenv.Ascii)
	c.toPlaybook("contain.stop")
	c.keys("c")
	st := c.m.Steps().State().Step("contain.stop")
	if st.Check == nil || st.Check.Status != incident.CheckVerified {
		t.Fatalf("the stop step's check: %+v", st.Check)
	}
	c.keys("d")
	if p := c.m.Prompt(); !p.IsOpen() || p.Value() != st.Check.First.UTC().Format(time.RFC3339Nano) {
		t.Errorf("d offers %q, want the check's %s", p.Value(), st.Check.First)
	}
	if s := c.screen(); !strings.Contains(s, "as its check found") {
		t.Errorf("the prompt does not say where the time comes from:\n%s", s)
	}
}

func TestPlaybookDoneAsksForContainedAt(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.toPlaybook("contain.stop")
	c.keys("d")
	p := c.m.Prompt()
	if !p.IsOpen() || p.Ask().Kind != common.AskDoneAt || p.Ask().Step != "contain.stop" {
		t.Fatalf("d on contain.stop asks %+v", p.Ask())
	}
	// the fixture's harness killed agent-7, the subject: its ledger's kill
	// is offered (the responder's to keep or change), not taken
	kills, err := ws.HarnessKills(context.Background(), []string{"agent-7"})
	if err != nil || kills["agent-7"].IsZero() {
		t.Fatalf("the fixture's harness kill: %v %v", kills, err)
	}
	if v, err := time.Parse(time.RFC3339, p.Value()); err != nil || !v.Equal(kills["agent-7"]) {
		t.Errorf("the default %q (%v), want the ledger's kill %s", p.Value(), err, kills["agent-7"].UTC().Format(time.RFC3339Nano))
	}
	if s := c.screen(); !strings.Contains(s, "contained_at (RFC 3339, the ledg") || !strings.Contains(p.Ask().Prompt, "(RFC 3339, the ledger's kill)") {
		t.Errorf("the input does not say what it asks (%q):\n%s", p.Ask().Prompt, s)
	}
	if n := len(entries(t, ws)); n != 0 {
		t.Fatalf("asking journaled %d entries", n)
	}
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	c.typeText("yesterday")
	c.keys("enter")
	if _, err := c.m.Status(); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("a bad time gives %v", err)
	}
	if n := len(entries(t, ws)); n != 0 {
		t.Fatalf("a bad time journaled %d entries", n)
	}
	c.keys("esc", "d")
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	c.typeText("2026-07-21T10:15:00Z")
	c.keys("enter")
	s := c.m.Steps().State()
	want := time.Date(2026, 7, 21, 10, 15, 0, 0, time.UTC)
	if s.Step("contain.stop").Status != incident.StepDone || !s.Times["contained_at"].Equal(want) {
		t.Errorf("contained_at %v, step %+v", s.Times["contained_at"], s.Step("contain.stop"))
	}
	c.keys("enter") // into the step
	if scr := c.screen(); !strings.Contains(scr, "done records contained_at: 2026-07-21 10:15:00Z") {
		t.Errorf("the step does not show the recorded time:\n%s", scr)
	}
}

func TestPlaybookChecklistQueryAndCheck(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 120, 40, termenv.Ascii)
	c.toPlaybook("detect.evidence")
	c.keys("enter")
	if !c.m.Steps().InDetail() {
		t.Fatal("enter does not enter the step")
	}
	// the cursor starts on the check; j moves to the first checklist item
	c.keys("j")
	c.written(c.step(keyMsg("space")))
	if !c.m.Steps().State().Step("detect.evidence").Checked[0] {
		t.Error("space does not tick the first item")
	}
	if s := c.screen(); !strings.Contains(s, "CHECKLIST 1/3") || !strings.Contains(s, "[x] Ledger, proxy") {
		t.Errorf("the tick does not show:\n%s", s)
	}
	c.written(c.step(keyMsg("space")))
	if c.m.Steps().State().Step("detect.evidence").Checked[0] {
		t.Error("a second space does not untick it")
	}

	// c runs the check and journals it
	w := c.written(c.step(keyMsg("c")))
	if !strings.Contains(w.Text, "detect.evidence: verified") {
		t.Errorf("check status %q", w.Text)
	}
	res := c.m.Steps().State().Step("detect.evidence").Check
	if res == nil || res.Status != incident.CheckVerified || len(res.Events) == 0 {
		t.Fatalf("check result %+v", res)
	}
	if s := c.screen(); !strings.Contains(s, "Gather and freeze the evidence    verified") {
		t.Errorf("the list lacks the check's answer:\n%s", s)
	}
	// enter on the check filters the timeline to its evidence
	c.keys("g", "enter")
	if c.m.Focus() != "timeline" || !c.m.Timeline().Filter().Equal(evidence.IDs(res.Events...)) {
		t.Errorf("focus %s filter %q", c.m.Focus(), c.m.Timeline().Filter())
	}
	if hits, _ := c.m.Timeline().Hits(); int(hits) != len(res.Events) {
		t.Errorf("%d hits for %d evidence ids", hits, len(res.Events))
	}

	// enter on a saved query runs it as a search
	c.keys("esc") // clear the filter
	c.toPlaybook("detect.evidence")
	for range 10 {
		if strings.Contains(c.screen(), "▸⌕ Sensor gaps") {
			break
		}
		c.keys("j")
	}
	c.keys("j") // the second query: +source:ledger
	c.keys("enter")
	if c.m.Focus() != "timeline" || c.m.Timeline().Search() != "+source:ledger" {
		t.Errorf("focus %s search %q", c.m.Focus(), c.m.Timeline().Search())
	}

	// C runs every check
	c.toPlaybook("detect.evidence")
	w = c.written(c.step(keyMsg("C")))
	if !strings.Contains(w.Text, "checks:") {
		t.Errorf("C status %q", w.Text)
	}
	if n := len(c.m.Steps().State().Steps); n < 10 {
		t.Errorf("C journaled checks of %d steps", n)
	}
}

func TestNotesOnEventAndStep(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.keys("j", "j")
	ev, _ := c.m.Timeline().Selected()
	c.keys("i")
	if !c.m.Prompt().IsOpen() || c.m.Prompt().Ask().Event != ev.ID {
		t.Fatalf("i on the timeline asks %+v", c.m.Prompt().Ask())
	}
	c.typeText("quick look: q and tab stay here")
	if c.quit || c.m.Focus() != "timeline" {
		t.Fatal("keys typed into the note escaped the input")
	}
	c.keys("enter")
	es := entries(t, ws)
	if len(es) != 1 || es[0].Type != journal.EntryNote || es[0].Event != ev.ID || es[0].Text != "quick look: q and tab stay here" {
		t.Fatalf("journal %+v", es)
	}
	// esc cancels without writing
	c.keys("i", "x", "esc")
	if c.m.Prompt().IsOpen() || len(entries(t, ws)) != 1 {
		t.Error("esc did not cancel the note")
	}
	// on the event pane
	c.keys("enter", "i")
	c.typeText("second")
	c.keys("enter")
	if es := entries(t, ws); len(es) != 2 || es[1].Event != ev.ID {
		t.Errorf("note from the event pane: %+v", es[len(es)-1])
	}
	// on a step
	c.keys("esc")
	c.toPlaybook("attribute.identity")
	c.keys("n")
	c.typeText("agent-7 owns 10.0.3.7 at the time")
	c.keys("enter")
	es = entries(t, ws)
	if last := es[len(es)-1]; last.Step != "attribute.identity" || last.Type != journal.EntryNote {
		t.Errorf("step note %+v", last)
	}
	if n := c.m.Steps().State().Step("attribute.identity").Notes; n != 1 {
		t.Errorf("the step counts %d notes", n)
	}

	// the journal pane shows them newest first, t filters, enter opens
	c.keys("tab")
	if c.m.Focus() != "journal" {
		t.Fatalf("focus %s", c.m.Focus())
	}
	// the fixture's four files were journaled as received before the notes
	if sh := c.m.Journal().Shown(); len(sh) != 3+4 || sh[0].Step != "attribute.identity" || sh[len(sh)-1].Type != journal.EntryEvidenceReceived {
		t.Errorf("journal rows %+v", sh)
	}
	s := c.screen()
	if !strings.Contains(s, "chain ok, 7 entries") || !strings.Contains(s, "alice") || !strings.Contains(s, "event "+ev.ID) {
		t.Errorf("journal pane:\n%s", s)
	}
	c.keys("t") // types cycle in the order they first appear
	if c.m.Journal().Type() != journal.EntryEvidenceReceived {
		t.Errorf("t filters to %q", c.m.Journal().Type())
	}
	c.keys("t")
	if c.m.Journal().Type() != journal.EntryNote {
		t.Errorf("t filters to %q", c.m.Journal().Type())
	}
	c.keys("j", "enter")
	if c.m.Focus() != "event" || c.m.Detail().Event().ID != ev.ID {
		t.Errorf("enter on a note of an event: focus %s, event %s", c.m.Focus(), c.m.Detail().Event().ID)
	}
	c.keys("esc")
	if c.m.Focus() != "journal" {
		t.Errorf("esc from the event returns to %s", c.m.Focus())
	}
}

func TestJournalShowsOtherWriters(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.toPlaybook("triage.grant")
	// another process (the CLI) writes
	if _, err := ws.SetStep(context.Background(), journal.Actor{Name: "bob", Via: journal.ViaCLI}, "triage.grant", incident.StepDone, time.Time{}, ""); err != nil {
		t.Fatal(err)
	}
	// this console's own write polls, and reads both
	c.written(c.step(keyMsg("s")))
	if n := len(incidenttest.WithoutReceipts(c.m.Journal().Entries())); n != 2 {
		t.Fatalf("the journal pane read %d entries, want 2", n)
	}
	if st := c.m.Steps().State().Step("triage.grant"); st.Status != incident.StepStarted {
		t.Errorf("the playbook folds to %+v", st)
	}
	c.keys("tab")
	if s := c.screen(); !strings.Contains(s, "bob") || !strings.Contains(s, "chain ok, 6 entries") {
		t.Errorf("journal pane:\n%s", s)
	}
}

func TestReadOnlyConsoleRefusesCaseKeys(t *testing.T) {
	ws := incidenttest.New(t)
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	h := caseOf(t, ws, incident.HandleOptions{ReadOnly: true, Actor: journal.Actor{Name: "eve", Via: journal.ViaSSH}})
	m := tui.New(h, tui.Options{Renderer: r, Ctx: context.Background(), JournalPoll: -1})
	c := &console{t: t, m: m}
	c.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	c.run(m.Init())
	c.keys("i")
	if text, _ := c.m.Status(); text != journal.ErrReadOnly.Error() || c.m.Prompt().IsOpen() {
		t.Errorf("i in an observer's timeline: %q", text)
	}
	c.keys("a")
	if text, _ := c.m.Status(); text != "read-only: observers cannot call the assistant" || c.m.Focus() != "timeline" {
		t.Errorf("a in an observer's timeline: %q, focus %s", text, c.m.Focus())
	}
	c.toPlaybook("contain.stop")
	for _, k := range []string{"s", "d", "x", "c", "C", "n", "enter", "space"} {
		c.keys(k)
		if c.m.Prompt().IsOpen() {
			t.Fatalf("%s opened an input", k)
		}
		if k == "enter" {
			continue // enters the step
		}
		if text, _ := c.m.Status(); text != "read-only: observers cannot change the case" {
			t.Errorf("%s: status %q", k, text)
		}
	}
	if n := len(entries(t, ws)); n != 0 {
		t.Errorf("an observer wrote %d entries", n)
	}
	if s := c.screen(); !strings.Contains(s, "read-only: observers cannot change the case") {
		t.Errorf("the status line does not say why:\n%s", s)
	}
}

// TestAskOpensBeforeTheNextKey: keys typed right after d, x or n (a fast
// typist, tmux send-keys, a slow SSH link) land in the input, even before
// any command of the key has run.
func TestAskOpensBeforeTheNextKey(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.toPlaybook("contain.stop")
	for _, k := range []string{"d", "x", "n"} {
		c.step(keyMsg(k))
		if !c.m.Prompt().IsOpen() {
			t.Fatalf("%s: the input is not open when the next key arrives", k)
		}
		if cmd := c.step(keyMsg("q")); cmd != nil {
			if _, quit := cmd().(tea.QuitMsg); quit {
				t.Fatalf("%s then q quit", k)
			}
		}
		c.keys("esc")
	}
}

func TestJournalEnterOnCheckFiltersEvidence(t *testing.T) {
	ws := incidenttest.New(t)
	res, err := ws.Check(context.Background(), testActor, "detect.evidence")
	if err != nil || len(res) != 1 || len(res[0].Events) == 0 {
		t.Fatalf("check: %v %+v", err, res)
	}
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.keys("tab", "tab", "tab", "tab", "enter")
	if c.m.Focus() != "timeline" || !c.m.Timeline().Filter().Equal(evidence.IDs(res[0].Events...)) {
		t.Errorf("enter on a check result: focus %s, filter %q", c.m.Focus(), c.m.Timeline().Filter())
	}
}

// TestActionShowsCommandsAndNeedsTheAgentID: enter on an action shows the
// exact commands and runs them only once the agent id is typed back.
func TestActionShowsCommandsAndNeedsTheAgentID(t *testing.T) {
	ws := incidenttest.New(t)
	yaml := "actions:\n  stop-session:\n    title: Stop the session\n    run: echo stopping {{agent}}\n"
	if err := os.WriteFile(filepath.Join(ws.Dir, "cordon.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.toPlaybook("contain.stop")
	c.keys("enter")
	for range 20 {
		if strings.Contains(c.screen(), "▸▶ stop-session") {
			break
		}
		c.keys("j")
	}
	c.keys("enter")
	s := c.screen()
	if !strings.Contains(s, "$ echo stopping agent-7") || !c.m.Prompt().IsOpen() || !strings.Contains(s, "type agent-7 to run stop-session") {
		t.Fatalf("enter on the action:\n%s", s)
	}
	// a wrong id runs nothing and journals nothing
	c.typeText("agent-8")
	c.keys("enter")
	if text, _ := c.m.Status(); !strings.Contains(text, "not confirmed, nothing ran") || len(entries(t, ws)) != 0 {
		t.Fatalf("wrong id: %q, %d entries", text, len(entries(t, ws)))
	}
	if strings.Contains(c.screen(), "$ echo stopping") {
		t.Error("the plan is still shown after the answer")
	}
	// esc cancels
	c.keys("enter", "esc")
	if len(entries(t, ws)) != 0 || c.m.Prompt().IsOpen() {
		t.Fatal("esc did not cancel the action")
	}
	c.keys("enter")
	c.typeText("agent-7")
	c.keys("enter")
	es := entries(t, ws)
	if len(es) != 1 || es[0].Type != journal.EntryActionRun || !strings.Contains(string(es[0].Payload), "stopping agent-7") {
		t.Fatalf("journal after the confirmed action: %+v", es)
	}
	if text, err := c.m.Status(); err != nil || !strings.Contains(text, "stop-session ran 1 command(s), exit 0") {
		t.Errorf("status %q %v", text, err)
	}
}

func TestActionNotConfiguredSaysWhere(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.toPlaybook("contain.stop")
	c.keys("enter", "G", "k") // G lands past the actions, k back on the last
	for range 20 {
		if strings.Contains(c.screen(), "▸▶ ") {
			break
		}
		c.keys("k")
	}
	c.keys("enter")
	if _, err := c.m.Status(); err == nil || !strings.Contains(err.Error(), "cordon.yaml") {
		t.Errorf("an unconfigured action: %v", err)
	}
}

// TestEnterOpensAChecklistItem: enter on a checklist item opens it under
// its line (its whole text, whether and by whom it was ticked) and ticks
// nothing; space is the key that ticks, and the open item then says who
// ticked it; enter again folds it (issue 33). At 60 columns the item's
// line is cut, and the open item shows it whole.
func TestEnterOpensAChecklistItem(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 60, 24, termenv.Ascii)
	c.toPlaybook("detect.evidence")
	c.keys("enter", "j") // into the step; j moves from the check to the first item
	if s := c.screen(); strings.Contains(s, "onwards") {
		t.Fatalf("the first item is not cut at 60 columns, so its opening shows nothing new:\n%s", s)
	}
	c.keys("enter")
	if c.m.Steps().State().Step("detect.evidence").Checked[0] {
		t.Fatal("enter ticked the item")
	}
	s := c.screen()
	if !strings.Contains(s, "not ticked yet · space ticks it") || !strings.Contains(s, "enter opens an item, space ticks it") || !strings.Contains(s, "onwards") {
		t.Fatalf("enter does not open the item:\n%s", s)
	}
	c.written(c.step(keyMsg("space")))
	if !c.m.Steps().State().Step("detect.evidence").Checked[0] {
		t.Fatal("space does not tick the open item")
	}
	if s := c.screen(); !strings.Contains(s, "[x] Ledger, proxy") || !strings.Contains(s, "ticked by ") {
		t.Errorf("the open item does not say who ticked it:\n%s", s)
	}
	c.keys("enter")
	if s := c.screen(); strings.Contains(s, "ticked by ") || !c.m.Steps().State().Step("detect.evidence").Checked[0] {
		t.Errorf("enter again does not fold the item, or unticked it:\n%s", s)
	}
}
