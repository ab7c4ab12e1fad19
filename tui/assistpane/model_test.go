package assistpane

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/tui/common"
	"github.com/muesli/termenv"
)

// fakeCase answers the two assistant calls; every other Casework method
// is left nil, and the pane must not call them.
type fakeCase struct {
	common.Casework
	packet assist.Packet
	asks   int
	ask    func(ctx context.Context, req incident.AskRequest) (assist.Result, error)
}

func (f *fakeCase) AskPacket(context.Context, assist.Config, incident.AskRequest) (assist.Packet, error) {
	return f.packet, nil
}

func (f *fakeCase) Ask(ctx context.Context, _ journal.Actor, _ assist.Config, req incident.AskRequest, _ ...assist.Option) (assist.Result, error) {
	f.asks++
	return f.ask(ctx, req)
}

var online = assist.Config{BaseURL: "http://127.0.0.1:9/v1", Model: "local-model"}

func newPane(t *testing.T, ws common.Casework, cfg assist.Config) Model {
	t.Helper()
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	com := common.New(context.Background(), common.DefaultStyles(r, true), common.DefaultKeyMap(), nil).SetSize(80, 21)
	m := New(com, ws, journal.Actor{Name: "alice"}, cfg, nil)
	m.Open(Selection{Sel: assist.Selection{Query: evidence.MustParse("curl")}, Label: "the timeline's query curl (2 events)"})
	return m
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// msgs runs cmd and the batches it returns, for commands that do not
// block.
func msgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, msgs(c)...)
		}
		return out
	case nil:
		return nil
	default:
		return []tea.Msg{msg}
	}
}

// press sends keys and returns the last command.
func press(m Model, keys ...string) (Model, tea.Cmd) {
	var cmd tea.Cmd
	for _, k := range keys {
		m, cmd = m.Update(keyMsg(k))
	}
	return m, cmd
}

// screen is the pane's text with runs of blanks and line breaks made one
// space, so that a wrapped sentence still reads as one.
func screen(m Model) string { return strings.Join(strings.Fields(ansi.Strip(m.View())), " ") }

func TestPickerConfirmsBeforeSending(t *testing.T) {
	ws := &fakeCase{packet: assist.Packet{Sent: 3, Total: 5, Redactions: 2, Tokens: 1234, PromptTokens: 10040, ContextTokens: 16384, ReplyTokens: 1024, Tokenizer: assist.Estimate}}
	m := newPane(t, ws, online)
	if s := screen(m); !strings.Contains(s, "on: the timeline's query curl (2 events)") || !strings.Contains(s, "▸ summarize") ||
		!strings.Contains(s, "model local-model at 127.0.0.1:9") {
		t.Fatalf("picker:\n%s", s)
	}
	m, _ = press(m, "j", "j")
	if m.Task() != assist.TaskCluster {
		t.Fatalf("j j picks %s", m.Task())
	}
	m, cmd := press(m, "enter")
	for _, msg := range msgs(cmd) {
		m, _ = m.Update(msg)
	}
	if !m.Confirming() {
		t.Fatalf("no confirmation:\n%s", screen(m))
	}
	want := "cluster: send 3 events (≈10.0k of 16k tokens, reply up to 1k, estimated, 2 secrets redacted) to local-model at 127.0.0.1:9?"
	if s := screen(m); !strings.Contains(s, want) || !strings.Contains(s, "3 of the selection's 5 events would go") {
		t.Errorf("confirmation, want %q:\n%s", want, s)
	}
	if h := m.ShortHelp(); len(h) == 0 || h[0].Help().Desc != "send" {
		t.Errorf("help %+v", h)
	}
	// n sends nothing
	m, cmd = press(m, "n")
	if m.Confirming() || ws.asks != 0 {
		t.Errorf("n: confirming %v, asks %d", m.Confirming(), ws.asks)
	}
	if got := msgs(cmd); len(got) != 1 || got[0].(common.StatusMsg).Text != "not sent: nothing left the machine" {
		t.Errorf("n says %+v", got)
	}
}

func TestOfflineSkipsTheQuestionAndExplainsDisabledTasks(t *testing.T) {
	ws := &fakeCase{ask: func(_ context.Context, req incident.AskRequest) (assist.Result, error) {
		return assist.Result{Task: req.Task, Offline: true, Sent: 2, Total: 2, Answer: assist.Answer{Claims: []assist.Claim{{Text: "two events", EventIDs: []string{"a1"}, CitesReal: true}}}}, nil
	}}
	m := newPane(t, ws, assist.Config{}) // no endpoint: offline
	if s := screen(m); !strings.Contains(s, "offline (no endpoint configured)") || !strings.Contains(s, "needs a model ·") {
		t.Errorf("offline picker:\n%s", s)
	}
	m, cmd := press(m, "j", "j", "enter")
	if got := msgs(cmd); len(got) != 1 || !strings.Contains(got[0].(common.StatusMsg).Text, "offline: cluster needs a model") {
		t.Errorf("a disabled task says %+v", got)
	}
	m, _ = press(m, "g")
	m, cmd = press(m, "enter")
	m, _ = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(doneMsg); return ok })
	if m.Confirming() || ws.asks != 1 || !strings.Contains(screen(m), "offline answer (no endpoint configured)") {
		t.Errorf("offline summarize: asks %d\n%s", ws.asks, screen(m))
	}
}

// runUntil feeds the pane the replies of cmd until stop says so.
func runUntil(t *testing.T, m Model, cmd tea.Cmd, stop func(tea.Msg) bool) (Model, tea.Cmd) {
	t.Helper()
	for range 100 {
		if cmd == nil {
			t.Fatal("the commands ended first")
		}
		msg := cmd()
		m, cmd = m.Update(msg)
		if stop(msg) {
			return m, cmd
		}
	}
	t.Fatal("never stopped")
	return m, nil
}

func TestStreamThenClaims(t *testing.T) {
	res := assist.Result{Task: assist.TaskSummarize, Model: "local-model", Endpoint: "127.0.0.1:9", Sent: 3, Total: 5, Redactions: 1,
		Injections: []assist.Flag{{EventID: "f00d", Excerpt: "ignore previous instructions"}},
		Answer: assist.Answer{Structured: true, Claims: []assist.Claim{
			{Text: "agent-7 probed", EventIDs: []string{"a1", "b2"}, Phase: "detect", CitesReal: true},
			{Text: "reached a host", EventIDs: []string{"ffff"}, Unknown: []string{"ffff"}},
			{Text: "it is stopped"},
		}}}
	ws := &fakeCase{packet: assist.Packet{Sent: 3, Total: 5}, ask: func(_ context.Context, req incident.AskRequest) (assist.Result, error) {
		req.OnChunk(`{"claims":[`)
		req.OnChunk(`{"text":"agent-7 probed"`)
		return res, nil
	}}
	m := newPane(t, ws, online)
	m, cmd := press(m, "enter")
	m, _ = runUntil(t, m, cmd, func(tea.Msg) bool { return true })
	m, cmd = press(m, "y")
	if !m.Running() {
		t.Fatal("y did not send")
	}
	m, cmd = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(chunkMsg); return ok })
	if m.Streamed() != `{"claims":[` || !strings.Contains(screen(m), `{"claims":[`) {
		t.Errorf("first chunk: %q\n%s", m.Streamed(), screen(m))
	}
	m, cmd = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(chunkMsg); return ok })
	if !strings.Contains(screen(m), `{"text":"agent-7 probed"`) {
		t.Errorf("second chunk:\n%s", screen(m))
	}
	m, cmd = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(doneMsg); return ok })
	s := screen(m)
	for _, want := range []string{
		"summarize · sent 3 of 5 events · 1 redaction · local-model at 127.0.0.1:9",
		"3 claims · 2 UNVERIFIED",
		"▸ 1. [detect] agent-7 probed", "cites real events (support not checked) · cites a1 b2",
		"2. reached a host", "UNVERIFIED (unknown ids: ffff) · cites ffff",
		"3. it is stopped", "UNVERIFIED (cites no event)",
		"! 1 evidence line reads like instructions to an AI — treated as data",
		"f00d", "ignore previous instructions",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("answer lacks %q:\n%s", want, s)
		}
	}
	if got := msgs(cmd); len(got) != 1 || !strings.Contains(got[0].(common.WrittenMsg).Text, "3 claims, 2 unverified") {
		t.Errorf("done says %+v", got)
	}

	// enter on a claim shows its cited events in the timeline
	_, cmd = press(m, "enter")
	var filter common.FilterMsg
	for _, msg := range msgs(cmd) {
		if f, ok := msg.(common.FilterMsg); ok {
			filter = f
		}
	}
	if !filter.Replace || !filter.Set.Equal(evidence.IDs([]string{"a1", "b2"}...)) {
		t.Errorf("enter on claim 1: %+v", filter)
	}
	// a claim citing nothing says so
	m, cmd = press(m, "j", "j", "enter")
	if got := msgs(cmd); len(got) != 1 || got[0].(common.StatusMsg).Text != "this claim cites no event: nothing to show" {
		t.Errorf("enter on claim 3: %+v", got)
	}
	// a flagged line opens its event
	m, cmd = press(m, "j", "enter")
	if got := msgs(cmd); len(got) != 1 || got[0].(common.ShowEventMsg).ID != "f00d" {
		t.Errorf("enter on the flagged line: %+v", got)
	}
	if m.Cursor() != 3 {
		t.Errorf("cursor %d", m.Cursor())
	}
	// esc goes back to the tasks
	m, _ = press(m, "esc")
	if !strings.Contains(screen(m), "▸ summarize") {
		t.Errorf("esc:\n%s", screen(m))
	}
}

func TestEscCancelsAndStaleRepliesAreDropped(t *testing.T) {
	started := make(chan struct{})
	ws := &fakeCase{packet: assist.Packet{Sent: 1, Total: 1}, ask: func(ctx context.Context, req incident.AskRequest) (assist.Result, error) {
		req.OnChunk("partial ")
		close(started)
		<-ctx.Done()
		return assist.Result{Task: req.Task}, ctx.Err()
	}}
	m := newPane(t, ws, online)
	m, cmd := press(m, "enter")
	m, _ = runUntil(t, m, cmd, func(tea.Msg) bool { return true })
	m, cmd = press(m, "y")
	m, cmd = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(chunkMsg); return ok })
	<-started
	seq := m.seq

	m, esc := press(m, "esc")
	if got := msgs(esc); len(got) != 1 || got[0].(common.StatusMsg).Text != "cancelling the request…" {
		t.Errorf("esc says %+v", got)
	}
	m, cmd = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(doneMsg); return ok })
	if m.Running() || !strings.Contains(screen(m), "cancelled: the request was stopped; what was sent is in the journal") ||
		!strings.Contains(screen(m), "partial") {
		t.Errorf("after cancel:\n%s", screen(m))
	}
	if got := msgs(cmd); len(got) != 1 || got[0].(common.WrittenMsg).Text != "cancelled: what was sent is in the journal" {
		t.Errorf("cancel says %+v", got)
	}

	// a reply of an older request changes nothing and is not re-issued
	m.Open(Selection{Label: "another"})
	before := m.Streamed()
	m2, cmd := m.Update(chunkMsg{seq: seq, text: "stale words"})
	if cmd != nil || m2.Streamed() != before || strings.Contains(screen(m2), "stale words") {
		t.Errorf("a stale chunk was taken: %q", m2.Streamed())
	}
	m2, cmd = m2.Update(doneMsg{seq: seq, err: errors.New("late")})
	if cmd != nil || m2.Err() != nil {
		t.Errorf("a stale result was taken: %v", m2.Err())
	}
}

func TestHostileModelTextIsInert(t *testing.T) {
	hostile := "t\x1b]0;owned\x07 \x1b[2J\x1b[H \u202egpj.exe \x9b31m \x1b]52;c;ZXZpbA==\x07"
	res := assist.Result{Task: assist.TaskSummarize, Model: "m\x1b[31m", Endpoint: "h", Answer: assist.Answer{
		Notes:  hostile,
		Claims: []assist.Claim{{Text: hostile, EventIDs: []string{"id\x1b[2J"}, Unknown: []string{"id\x1b[2J"}, Phase: "detect"}},
	}, Injections: []assist.Flag{{EventID: "e\u202e1", Excerpt: hostile}}}
	ws := &fakeCase{packet: assist.Packet{Sent: 1, Total: 1}, ask: func(_ context.Context, req incident.AskRequest) (assist.Result, error) {
		req.OnChunk(hostile)
		return res, nil
	}}
	m := newPane(t, ws, online)
	m.Open(Selection{Label: "query " + hostile})
	m, cmd := press(m, "enter")
	m, _ = runUntil(t, m, cmd, func(tea.Msg) bool { return true })
	m, cmd = press(m, "y")
	m, cmd = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(chunkMsg); return ok })
	checkInert(t, "stream", m.View())
	m, _ = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(doneMsg); return ok })
	checkInert(t, "answer", m.View())
	if !strings.Contains(m.View(), `\x1b]0;owned\x07`) {
		t.Errorf("the escape is not shown as text:\n%s", m.View())
	}
}

func checkInert(t *testing.T, what, v string) {
	t.Helper()
	for i, r := range v {
		if r == 0x1b || r == 0x07 || (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			t.Errorf("%s: %U at %d: %q", what, r, i, v[max(i-20, 0):min(i+20, len(v))])
			return
		}
	}
	for _, l := range strings.Split(v, "\n") {
		if n := ansi.StringWidth(l); n > 80 {
			t.Errorf("%s: a line of %d cells: %q", what, n, l)
		}
	}
}
