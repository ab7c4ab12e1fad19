package tui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/muesli/termenv"
)

// sseServer speaks chat completions over SSE: it cites the first event id
// of the evidence it was sent (where a part holds FIRST_ID), and sends
// each part of the answer only when the test releases it. With hang, it
// sends the first part and then waits for the client to go away.
type sseServer struct {
	*httptest.Server
	release chan struct{}
	calls   atomic.Int32
	firstID atomic.Value
}

var evidenceID = regexp.MustCompile(`(?m)^([0-9a-f]{16}) `)

func newSSEServer(t *testing.T, parts []string, hang bool) *sseServer {
	s := &sseServer{release: make(chan struct{}, len(parts)+1)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			// the endpoint's probe: models and settings, no evidence
			http.NotFound(w, r)
			return
		}
		s.calls.Add(1)
		var req struct {
			Stream   bool  `json:"stream"`
			Tools    []any `json:"tools"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || !req.Stream || len(req.Tools) > 0 || len(req.Messages) < 2 {
			http.Error(w, "want a streamed chat request without tools", http.StatusBadRequest)
			return
		}
		id := evidenceID.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
		if id == nil {
			http.Error(w, "no evidence", http.StatusBadRequest)
			return
		}
		s.firstID.Store(id[1])
		w.Header().Set("Content-Type", "text/event-stream")
		for i, p := range parts {
			select {
			case <-s.release:
			case <-r.Context().Done():
				return
			}
			p = strings.ReplaceAll(p, "FIRST_ID", id[1])
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"local-model\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%s}}]}\n\n", quoteJSON(p))
			w.(http.Flusher).Flush()
			if hang && i == 0 {
				<-r.Context().Done()
				return
			}
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(s.Close)
	return s
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// config points the console's assistant at the server.
func (s *sseServer) config() assist.Config {
	return assist.Config{BaseURL: s.URL + "/v1", Model: "local-model", Timeout: 20 * time.Second, MaxRetries: -1}
}

// newAssistConsole is newConsole with the assistant's endpoint set.
func newAssistConsole(t *testing.T, ws *incident.Workspace, w, h int, profile termenv.Profile, cfg assist.Config) *console {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(profile)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	m := tui.New(caseOf(t, ws, incident.HandleOptions{Actor: testActor, Assistant: &cfg}), tui.Options{Renderer: r, Dark: true, Ctx: ctx, JournalPoll: -1})
	c := &console{t: t, m: m}
	c.send(tea.WindowSizeMsg{Width: w, Height: h})
	c.run(m.Init())
	return c
}

// flat runs cmd (and the batches it returns) and returns its messages.
func flat(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, flat(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

// pump delivers the messages of cmd one step, without running what they
// start, and returns the commands they started.
func (c *console) pump(cmd tea.Cmd) tea.Cmd {
	c.t.Helper()
	var next []tea.Cmd
	for _, msg := range flat(cmd) {
		next = append(next, c.step(msg))
	}
	return tea.Batch(next...)
}

// flatScreen is the screen with blanks and line breaks made one space.
func (c *console) flatScreen() string { return strings.Join(strings.Fields(c.screen()), " ") }

// toFindingsAssistant opens the assistant on the first finding.
func (c *console) toFindingsAssistant() {
	c.t.Helper()
	c.keys("tab", "tab", "enter") // the first agent's episodes
	if c.m.Focus() != "findings" || len(c.m.Findings().Findings()) == 0 {
		c.t.Fatalf("focus %s, %d findings", c.m.Focus(), len(c.m.Findings().Findings()))
	}
	c.keys("a")
	if c.m.Focus() != "assistant" {
		c.t.Fatalf("a on a finding: focus %s", c.m.Focus())
	}
}

// TestAssistantStreamsFromEndpoint: a finding's evidence goes to a
// loopback endpoint after y; the answer shows as it streams, then as
// verified and UNVERIFIED claims; the journal has the exchange; enter on a
// claim shows its events in the timeline.
func TestAssistantStreamsFromEndpoint(t *testing.T) {
	ws := incidenttest.New(t)
	parts := []string{
		`{"claims":[{"text":"agent probed the metadata endpoint",`,
		`"event_ids":["FIRST_ID"],"phase":"detect"},{"text":"then reached a never logged host",`,
		`"event_ids":["ffffffffffffffff"]}],"notes":"streamed notes end"}`,
	}
	srv := newSSEServer(t, parts, false)
	c := newAssistConsole(t, ws, 120, 40, termenv.Ascii, srv.config())
	c.toFindingsAssistant()
	f := c.m.Findings().Findings()[0]
	if s := c.flatScreen(); !strings.Contains(s, "on: finding "+f.Detector) || !strings.Contains(s, "model local-model at "+srv.Listener.Addr().String()) {
		t.Fatalf("the pane does not say what it works on:\n%s", c.screen())
	}
	c.keys("enter")
	s := c.flatScreen()
	if !regexp.MustCompile(`summarize: send \d+ events \(≈[\d.]+k? of 8k tokens, reply up to 1k, estimated, \d+ secrets redacted\) to local-model at 127\.0\.0\.1:\d+\?`).MatchString(s) ||
		!strings.Contains(s, "y sends it · n or esc does not") || srv.calls.Load() != 0 {
		t.Fatalf("no confirmation before sending (calls %d):\n%s", srv.calls.Load(), c.screen())
	}
	if text, _ := c.m.Status(); text != "" {
		t.Errorf("status %q", text)
	}
	cmd := c.step(keyMsg("y"))
	for i, want := range []string{"agent probed the metadata endpoint", "then reached a never logged host", "streamed notes end"} {
		srv.release <- struct{}{}
		cmd = c.pump(cmd)
		if i < len(parts)-1 && !c.m.Assistant().Running() {
			t.Fatalf("part %d: not running; err %v", i, c.m.Assistant().Err())
		}
		if !strings.Contains(c.flatScreen(), want) {
			t.Errorf("part %d did not show as it arrived:\n%s", i, c.screen())
		}
	}
	c.run(cmd)
	id, _ := srv.firstID.Load().(string)
	s = c.flatScreen()
	for _, want := range []string{
		"sent ", "local-model at " + srv.Listener.Addr().String(),
		"2 claims · 1 UNVERIFIED",
		"1. [detect] agent probed the metadata endpoint", "cites real events", "· cites " + id,
		"2. then reached a never logged host", "UNVERIFIED (unknown ids: ffffffffffffffff)",
		"notes: streamed notes end",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the answer lacks %q:\n%s", want, c.screen())
		}
	}
	if text, _ := c.m.Status(); !strings.Contains(text, "2 claims, 1 unverified") {
		t.Errorf("status %q", text)
	}
	var ex []journal.Entry
	for _, e := range entries(t, ws) {
		if e.Type == journal.EntryAssistantExchange {
			ex = append(ex, e)
		}
	}
	if len(ex) != 1 || ex[0].Actor.Name != "alice" || !strings.Contains(ex[0].Text, "2 claims (1 unverified) from local-model at 127.0.0.1") {
		t.Errorf("journal: %+v", ex)
	}
	// the journal pane read it
	if n := len(incidenttest.WithoutReceipts(c.m.Journal().Entries())); n != 1 {
		t.Errorf("the journal pane holds %d entries", n)
	}

	c.keys("enter")
	if c.m.Focus() != "timeline" || !c.m.Timeline().Filter().Equal(evidence.IDs([]string{id}...)) {
		t.Errorf("enter on claim 1: focus %s filter %q", c.m.Focus(), c.m.Timeline().Filter())
	}
	if rows := c.m.Timeline().Rows(); len(rows) != 1 || rows[0].ID != id {
		t.Errorf("the timeline shows %d rows", len(rows))
	}
	// tab comes back to the answer
	for range 8 {
		if c.m.Focus() == "assistant" {
			break
		}
		c.keys("tab")
	}
	if c.m.Focus() != "assistant" || !strings.Contains(c.flatScreen(), "UNVERIFIED") {
		t.Errorf("tab back to the assistant: focus %s", c.m.Focus())
	}
}

// TestAssistantEscCancels: esc stops a streaming request; the pane says so
// and the journal still records what was sent.
func TestAssistantEscCancels(t *testing.T) {
	ws := incidenttest.New(t)
	srv := newSSEServer(t, []string{`{"claims":[{"text":"half an answer`, `"}]}`}, true)
	c := newAssistConsole(t, ws, 80, 24, termenv.Ascii, srv.config())
	c.toFindingsAssistant()
	c.keys("enter")
	cmd := c.step(keyMsg("y"))
	srv.release <- struct{}{}
	cmd = c.pump(cmd)
	if !c.m.Assistant().Running() || !strings.Contains(c.flatScreen(), "half an answer") {
		t.Fatalf("the first part:\n%s", c.screen())
	}
	c.keys("esc")
	if text, _ := c.m.Status(); text != "cancelling the request…" {
		t.Errorf("esc: status %q", text)
	}
	c.run(cmd)
	s := c.flatScreen()
	if c.m.Assistant().Running() || !strings.Contains(s, "cancelled: the request was stopped; what was sent is in the journal") ||
		!strings.Contains(s, "half an answer") {
		t.Errorf("after esc:\n%s", c.screen())
	}
	es := entries(t, ws)
	if len(es) != 1 || es[0].Type != journal.EntryAssistantExchange || !strings.Contains(es[0].Text, "failed") {
		t.Errorf("journal %+v", es)
	}
	c.keys("esc")
	if !strings.Contains(c.flatScreen(), "▸ summarize") {
		t.Errorf("esc after a cancel:\n%s", c.screen())
	}
}

// TestAssistantAskQuestion: ask opens the one-line input; the question is
// confirmed with the evidence, n sends nothing; a question outside the
// defender scope is refused, journaled, and sends nothing.
func TestAssistantAskQuestion(t *testing.T) {
	ws := incidenttest.New(t)
	srv := newSSEServer(t, nil, false)
	c := newAssistConsole(t, ws, 80, 24, termenv.Ascii, srv.config())
	c.keys("/")
	c.typeText("curl")
	c.keys("enter", "a")
	if sel := c.m.Assistant().Selection(); !sel.Sel.Query.Equal(c.m.Timeline().Query()) || !strings.Contains(sel.Label, "curl (2 events)") {
		t.Errorf("a on a search: %+v", sel)
	}
	c.keys("G", "k", "enter") // ask, above query
	if !c.m.Prompt().IsOpen() || c.m.Prompt().Ask().Kind != common.AskQuestion {
		t.Fatalf("ask opened %+v", c.m.Prompt().Ask())
	}
	c.typeText("which host did q reach first?")
	if c.quit {
		t.Fatal("q in the question quit")
	}
	c.keys("enter")
	s := c.flatScreen()
	if !strings.Contains(s, "ask: send 2 events") || !strings.Contains(s, "question: which host did q reach first?") {
		t.Errorf("the question's confirmation:\n%s", c.screen())
	}
	c.keys("n")
	if srv.calls.Load() != 0 || len(entries(t, ws)) != 0 {
		t.Errorf("n sent %d requests", srv.calls.Load())
	}
	c.keys("enter")
	c.send(tea.KeyMsg{Type: tea.KeyCtrlU}) // clear the last question
	c.typeText("how do I bypass the egress proxy")
	c.keys("enter")
	es := entries(t, ws)
	if srv.calls.Load() != 0 || len(es) != 1 || es[0].Type != journal.EntryAssistantRefusal {
		t.Errorf("a refused question: %d calls, journal %+v", srv.calls.Load(), es)
	}
	if s := c.flatScreen(); !strings.Contains(s, "outside the defender scope") {
		t.Errorf("the refusal:\n%s", c.screen())
	}
}

// TestAssistantSelections: an event and its related events; the whole
// incident from the Playbook pane.
func TestAssistantSelections(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.keys("j", "enter")
	ev := c.m.Detail().Event()
	c.keys("a")
	sel := c.m.Assistant().Selection()
	if len(sel.Sel.IDs) < 2 || sel.Sel.IDs[0] != ev.ID || !strings.HasPrefix(sel.Label, "event "+ev.ID+" and ") {
		t.Errorf("a on an event: %+v", sel)
	}
	c.toPlaybook("detect.signal")
	c.keys("a")
	if sel := c.m.Assistant().Selection(); !sel.Sel.Query.IsAll() || sel.Sel.IDs != nil || sel.Label != "the whole incident and its findings" {
		t.Errorf("a on the playbook: %+v", sel)
	}
	// i is the step note key there, n still works
	c.toPlaybook("detect.signal")
	c.keys("i")
	if !c.m.Prompt().IsOpen() || c.m.Prompt().Ask().Step != "detect.signal" {
		t.Errorf("i on a step: %+v", c.m.Prompt().Ask())
	}
}

// TestAssistantOffline: with no endpoint, summarize runs by rules at once,
// is journaled, and the other model tasks say why they are off.
func TestAssistantOffline(t *testing.T) {
	ws := incidenttest.New(t)
	c := newConsole(t, ws, 80, 24, termenv.Ascii)
	c.toFindingsAssistant()
	c.keys("j", "j", "enter")
	if text, _ := c.m.Status(); !strings.Contains(text, "offline: cluster needs a model") {
		t.Errorf("cluster offline: %q", text)
	}
	c.keys("g", "enter")
	s := c.flatScreen()
	if !strings.Contains(s, "offline answer (no endpoint configured)") || strings.Contains(s, "UNVERIFIED") {
		t.Errorf("offline answer:\n%s", c.screen())
	}
	if es := entries(t, ws); len(es) != 1 || es[0].Type != journal.EntryAssistantExchange || !strings.Contains(es[0].Text, "from offline") {
		t.Errorf("journal %+v", es)
	}
}

// TestAssistantConfigError: a configuration that cannot work is shown,
// and only the offline tasks run.
func TestAssistantConfigError(t *testing.T) {
	ws := incidenttest.New(t)
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	bad := assist.Config{BaseURL: "ftp://x"}
	m := tui.New(caseOf(t, ws, incident.HandleOptions{Actor: testActor, Assistant: &bad}), tui.Options{Renderer: r, Ctx: context.Background(), JournalPoll: -1})
	c := &console{t: t, m: m}
	c.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	c.run(m.Init())
	c.keys("a")
	if s := c.flatScreen(); !strings.Contains(s, "CORDON_LLM_BASE_URL is not an http(s) URL — offline answers only") {
		t.Errorf("config error:\n%s", c.screen())
	}
}

// TestHostileModelOutputIsInert: escape sequences and bidi controls from
// the model, streamed and in the claims, render as text.
func TestHostileModelOutputIsInert(t *testing.T) {
	ws := incidenttest.New(t)
	hostile := "owned \x1b]0;title\x07 \x1b[2J\x1b[H \u202egpj.exe \u0085 \x1b]52;c;ZXZpbA==\x07 \x9b31m"
	answer, _ := json.Marshal(map[string]any{"claims": []map[string]any{
		{"text": hostile, "event_ids": []string{"FIRST_ID", "id\x1b[31m"}, "phase": "detect"},
	}, "notes": hostile})
	srv := newSSEServer(t, []string{hostile + "\n", string(answer)}, false)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		c := newAssistConsole(t, ws, size[0], size[1], termenv.TrueColor, srv.config())
		c.toFindingsAssistant()
		c.keys("enter")
		cmd := c.step(keyMsg("y"))
		srv.release <- struct{}{}
		cmd = c.pump(cmd)
		inert(t, "streamed", c.m.View())
		if !strings.Contains(ansi.Strip(c.m.View()), `\x1b]0;title\x07`) {
			t.Errorf("the stream does not show the escape as text:\n%s", ansi.Strip(c.m.View()))
		}
		srv.release <- struct{}{}
		c.run(cmd)
		v := c.m.View()
		inert(t, "answer", v)
		if !strings.Contains(ansi.Strip(v), `\u{202e}gpj.exe`) || !strings.Contains(ansi.Strip(v), "UNVERIFIED (unknown ids: id") {
			t.Errorf("answer:\n%s", ansi.Strip(v))
		}
		c.keys("enter") // the claim's ids go to the timeline as a query
		inert(t, "timeline after a hostile claim", c.m.View())
	}
}

// TestGoldenAssistant: the task picker and an offline answer on a finding
// of the fixture, each on a fresh workspace (the answer is journaled).
func TestGoldenAssistant(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		for _, view := range []struct {
			name string
			keys []string
		}{
			{"tasks", []string{"tab", "tab", "enter", "a"}},
			{"offline", []string{"tab", "tab", "enter", "a", "enter"}},
			{"offline-scrolled", []string{"tab", "tab", "enter", "a", "enter", "G"}},
		} {
			t.Run(fmt.Sprintf("%s-%dx%d", view.name, w, h), func(t *testing.T) {
				c := newConsole(t, incidenttest.New(t), w, h, termenv.Ascii)
				c.keys(view.keys...)
				s := c.screen()
				checkSize(t, s, w, h)
				requireGolden(t, s)
			})
		}
	}
}

// TestAssistantEscGoesBack: esc at the task picker returns to the pane the
// assistant was opened from (it used to keep the console in the pane).
func TestAssistantEscGoesBack(t *testing.T) {
	c := newConsole(t, incidenttest.New(t), 80, 24, termenv.Ascii)
	c.toFindingsAssistant()
	c.keys("esc")
	if c.m.Focus() != "findings" {
		t.Errorf("esc from the task picker leaves focus on %s, want findings", c.m.Focus())
	}
}
