package tui_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/muesli/termenv"
)

// hostileLedger is evidence written by an agent that wants to take over the
// responder's terminal: window title (OSC 0), clipboard write (OSC 52),
// hyperlink (OSC 8), screen clear (CSI 2J), a DCS string, a C1 CSI, bidi
// overrides that reorder a command line, and a 100 KB field.
func hostileLedger() []byte {
	huge := strings.Repeat("A", 100<<10)
	recs := []string{
		`{"v":1,"ts":"2026-07-21T10:00:00Z","type":"session_start","agent":"evil\u001b[31m\u001b]0;owned\u0007","session":"s\u001b[2J","model":"m\u202e1gol","sandbox":{"id":"sb\u001bP1$r\u001b\\","ip":"10.0.0.1\u009b2J"}}`,
		`{"v":1,"ts":"2026-07-21T10:00:01Z","type":"summary","agent":"evil\u001b[31m\u001b]0;owned\u0007","text":"title \u001b]0;pwned\u0007 clip \u001b]52;c;ZXZpbA==\u0007 clear \u001b[2J\u001b[H bidi \u202egpj.exe\u202c iso \u2066x\u2069 c1 \u009b31m dcs \u001bP1$r\u001b\\ bell \u0007"}`,
		`{"v":1,"ts":"2026-07-21T10:00:02Z","type":"tool_call","agent":"evil\u001b[31m\u001b]0;owned\u0007","call_id":"c\u001b]52;c;QQ==\u0007","tool":"bash","args":{"cmd":"echo ` + huge + `"}}`,
		`{"v":1,"ts":"2026-07-21T10:00:03Z","type":"policy_decision","agent":"evil\u001b[31m\u001b]0;owned\u0007","call_id":"c\u001b]52;c;QQ==\u0007","decision":"deny","policy":"p\u001b]8;;http://x\u0007link\u001b]8;;\u0007","reason":"r\u001b[1;1H","target":"h\u001b[6n:443"}`,
		"{\"v\":1,\"ts\":\"2026-07-21T10:00:04Z\",\"type\":\"summary\",\"agent\":\"raw\",\"text\":\"literal \u202e and \u0085 and \u009b in JSON\"}",
	}
	return []byte(strings.Join(recs, "\n") + "\n")
}

// inert fails when a rendered screen carries anything but lipgloss's own
// SGR styling: no other escape, no C1 control, no bidi control, no bell.
func inert(t *testing.T, what, view string) {
	t.Helper()
	rest := sgr.ReplaceAllString(view, "")
	for i, r := range rest {
		bad := r == 0x1b || r == 0x07 || (r >= 0x80 && r < 0xa0) || r == 0x9b ||
			(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
		if bad {
			t.Errorf("%s: %U at byte %d: %q", what, r, i, rest[max(i-20, 0):min(i+20, len(rest))])
			return
		}
	}
	escapedTwice(t, what, ansi.Strip(view))
	for _, l := range strings.Split(ansi.Strip(view), "\n") {
		if n := cellWidth(l); n > 120 {
			t.Errorf("%s: a line is %d cells wide", what, n)
			return
		}
	}
}

// escapedTwice fails when text made Printable was made Printable again:
// an escape shown as \\x1b or \\u{202e}. The hostile records hold no
// such literal text (their raw JSON spells escapes \u001b), so each of
// these is a second pass.
func escapedTwice(t *testing.T, what, screen string) {
	t.Helper()
	for _, twice := range []string{`\\x`, `\\u{`} {
		if i := strings.Index(screen, twice); i >= 0 {
			t.Errorf("%s: escaped twice at byte %d: %q", what, i, screen[max(i-20, 0):min(i+20, len(screen))])
			return
		}
	}
}

func TestHostileEvidenceIsInert(t *testing.T) {
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "hostile.jsonl", hostileLedger()))
	if n := ws.Counts().Total; n != 5 {
		t.Fatalf("ingested %d hostile records, want 5", n)
	}
	c := newConsole(t, ws, 120, 40, termenv.TrueColor)
	if !strings.Contains(c.m.View(), "\x1b[") {
		t.Fatal("no SGR at all: the colour profile is not forced")
	}
	inert(t, "timeline", c.m.View())
	for i := range 5 {
		c.keys("g")
		for range i {
			c.keys("j")
		}
		c.keys("enter")
		inert(t, fmt.Sprintf("event %d", i), c.m.View())
		for range 40 { // scroll the whole document: fields, related, raw
			c.keys("pgdown")
			inert(t, fmt.Sprintf("event %d scrolled", i), c.m.View())
		}
		c.keys("esc")
	}
	c.keys("t")
	inert(t, "relative timeline", c.m.View())
	c.keys("tab")
	inert(t, "agents", c.m.View())
	c.keys("enter") // filter to the hostile agent: the header shows it
	inert(t, "filtered timeline", c.m.View())
	c.keys("f", "j", "j", "j", "enter")
	inert(t, "agent facet", c.m.View())
	c.keys("esc", "esc", "/")
	c.typeText("\x1b]0;typed\x07")
	inert(t, "search bar", c.m.View())
}

// TestHostileNoteIsInert: a note quotes hostile evidence (or a paste of
// it); the input, the journal pane and the step detail render it inert.
func TestHostileNoteIsInert(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 120, 40, termenv.TrueColor)
	hostile := "saw \x1b]0;owned\x07 and \x1b[2J\x1b[H and \u202egpj.exe and \x9b31m and \x1b]52;c;ZXZpbA==\x07"
	c.keys("i")
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(hostile), Paste: true})
	inert(t, "note input", c.m.View())
	c.keys("enter")
	es := incidenttest.Casework(t, ws)
	if len(es) != 1 {
		t.Fatalf("journal: %d entries besides the evidence received", len(es))
	}
	c.toPlaybook("detect.signal")
	c.keys("n")
	c.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(hostile), Paste: true})
	c.keys("enter")
	c.keys("enter")
	inert(t, "step detail", c.m.View())
	c.keys("esc", "tab")
	v := c.m.View()
	inert(t, "journal pane", v)
	if !strings.Contains(ansi.Strip(v), `\u{202e}gpj.exe`) {
		t.Errorf("the escape is not shown as text:\n%s", ansi.Strip(v))
	}
}

// TestHostileCaseVariablesAreInert: the playbook fills its templates with
// values from the evidence (the subject agent, its sessions), which the
// agent under investigation wrote.
func TestHostileCaseVariablesAreInert(t *testing.T) {
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "hostile.jsonl", hostileLedger()))
	if _, err := ws.SetSubject(context.Background(), journal.Actor{Name: "alice", Via: journal.ViaCLI}, []string{"evil\x1b[31m\x1b]0;owned\x07"}); err != nil {
		t.Fatal(err)
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		c := newConsole(t, ws, size[0], size[1], termenv.TrueColor)
		c.toPlaybook("triage.grant")
		inert(t, "playbook", c.m.View())
		if !strings.Contains(ansi.Strip(c.m.View()), `subject evil\x1b[31m`) {
			t.Errorf("the subject is not shown as text:\n%s", ansi.Strip(c.m.View()))
		}
		c.keys("enter")
		for i := range 8 {
			inert(t, fmt.Sprintf("step detail %d", i), c.m.View())
			c.keys("j")
		}
		c.keys("enter") // a saved query with the hostile agent in it
		inert(t, "timeline after a saved query", c.m.View())
	}
}

// TestHelpInColour: the help is styled text of our own; with colours on it
// must reach the terminal as styling, not as escaped "\x1b[…" text (the
// evidence sanitizer must not run over it).
func TestHelpInColour(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.ANSI256)
	c.keys("?")
	v := c.m.View()
	if strings.Contains(v, `\x1b`) {
		t.Errorf("the help shows escaped styling:\n%s", v)
	}
	if s := c.screen(); !strings.Contains(s, "KEYS") || !strings.Contains(s, "quit") {
		t.Errorf("help at 80x24:\n%s", s)
	}
	c.keys("?")
	// every pane, in colour: no styling escaped into text
	for _, k := range []string{"enter", "esc", "tab", "tab", "tab", "tab", "tab"} {
		c.keys(k)
		if v := c.m.View(); strings.Contains(v, `\x1b`) {
			t.Errorf("after %s the %s pane shows escaped styling:\n%s", k, c.m.Focus(), c.screen())
		}
	}
}

// TestFarDatedRecordIsNamedNotStretched: one record dated 9999-12-31 among
// a few minutes of evidence. The header's span and the sparkline keep to
// the main span; a line names the record and the query that finds it, and
// its row shows its date. (The console used to grow past 8 GB planning
// pages over the three million days between.)
func TestFarDatedRecordIsNamedNotStretched(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, `{"v":1,"ts":"2026-07-21T10:%02d:%02dZ","type":"summary","agent":"agent-7","text":"s%d"}`+"\n", i/60, i%60, i)
	}
	b.WriteString(`{"v":1,"ts":"9999-12-31T23:59:59Z","type":"summary","agent":"agent-7","text":"far"}` + "\n")
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "far.jsonl", []byte(b.String())))
	c := newConsole(t, ws, 120, 40, termenv.Ascii)
	screen := c.screen()
	for _, want := range []string{
		"2026-07-21 10:00:00–10:04:59 UTC (4m59s)",
		`1 event outside the main span (latest 9999-12-31): search time:>"2026-07-21T10:04:59Z" to see them`,
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	c.keys("G")
	if screen := c.screen(); !strings.Contains(screen, "9999-12-31") || !strings.Contains(screen, "summary: far") {
		t.Errorf("the far record's row does not show its date:\n%s", screen)
	}
}

// A literal \x1b]0;… in evidence looked the same as an escaped real ESC:
// on the screen the agent's own backslash reads \\, so the two differ,
// in the timeline and in the event.
func TestLiteralEscapeTextIsNotAnEscape(t *testing.T) {
	recs := `{"v":1,"ts":"2026-07-21T10:00:00Z","type":"summary","agent":"a-1","text":"real \u001b]0;owned\u0007 end"}` + "\n" +
		`{"v":1,"ts":"2026-07-21T10:00:01Z","type":"summary","agent":"a-1","text":"fake \\x1b]0;owned\\x07 end"}` + "\n"
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "ledger.jsonl", []byte(recs)))
	c := newConsole(t, ws, 120, 40, termenv.TrueColor)
	s := c.screen()
	if !strings.Contains(s, `real \x1b]0;owned\x07 end`) || !strings.Contains(s, `fake \\x1b]0;owned\\x07 end`) {
		t.Errorf("timeline:\n%s", s)
	}
	c.keys("g", "enter")
	if s := c.screen(); !strings.Contains(s, `real \x1b]0;owned\x07 end`) || strings.Contains(s, `real \\x1b`) {
		t.Errorf("event:\n%s", s)
	}
}

// TestHostileEvidenceEscapedOnce walks every pane of a case built from
// hostile evidence (a subject, a note quoting it, checks run) and opens
// what each lists: nothing shown is escaped twice (\\x1b for an ESC),
// which is what text made printable and then fitted again looks like.
func TestHostileEvidenceEscapedOnce(t *testing.T) {
	ctx := context.Background()
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "hostile.jsonl", hostileLedger()))
	actor := journal.Actor{Name: "alice", Via: journal.ViaCLI}
	if _, err := ws.SetSubject(ctx, actor, []string{"evil\x1b[31m\x1b]0;owned\x07"}); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Note(ctx, actor, "", "", "saw \x1b]0;owned\x07 and \u202egpj.exe"); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.Check(ctx, actor); err != nil {
		t.Fatal(err)
	}
	c := newConsole(t, ws, 120, 40, termenv.TrueColor)
	for range 8 {
		pane := c.m.Focus()
		inert(t, pane, c.m.View())
		for _, k := range []string{"j", "enter", "j", "pgdown", "esc"} {
			c.keys(k)
			inert(t, pane+" after "+k, c.m.View())
		}
		c.keys("tab")
	}
}
