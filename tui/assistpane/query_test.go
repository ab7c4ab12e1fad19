package assistpane

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/tui/common"
)

// TestQueryTaskPreviewsThenRuns: the query task asks for the question in
// plain words, shows the query with its hit count, and runs it in the
// timeline only on y.
func TestQueryTaskPreviewsThenRuns(t *testing.T) {
	var asked incident.AskRequest
	ws := &fakeCase{packet: assist.Packet{Sent: 3, Total: 5}, ask: func(_ context.Context, req incident.AskRequest) (assist.Result, error) {
		asked = req
		return assist.Result{Task: assist.TaskQuery, Model: "local-model", Sent: 3, Total: 5,
			Suggestion: &assist.Suggestion{Query: "agent:agent-12 credential:cred-9", Explanation: "agent-12 with cred-9", Hits: 14},
			Answer:     assist.Answer{Structured: true, Claims: []assist.Claim{{Text: "agent-12 with cred-9"}}}}, nil
	}}
	m := newPane(t, ws, online)
	m, _ = press(m, "G")
	if m.Task() != assist.TaskQuery {
		t.Fatalf("G picks %s", m.Task())
	}
	m, _ = press(m, "enter")
	a, ok := m.TakeAsk()
	if !ok || a.Kind != common.AskQuestion || !strings.Contains(a.Prompt, "plain words") {
		t.Fatalf("no question asked: %+v", a)
	}
	m, cmd := m.Update(common.AnswerMsg{Ask: a, Value: "everything agent-12 did with the stolen token after the kill"})
	m, _ = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(packetMsg); return ok })
	if !m.Confirming() || !strings.Contains(screen(m), "question: everything agent-12 did") {
		t.Fatalf("no confirmation:\n%s", screen(m))
	}
	m, cmd = press(m, "y")
	var after []tea.Msg
	m, cmd = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(doneMsg); return ok })
	after = msgs(cmd)
	if asked.Task != assist.TaskQuery || asked.Question == "" {
		t.Errorf("asked %+v", asked)
	}
	s := screen(m)
	if !strings.Contains(s, "query: agent:agent-12 credential:cred-9") || !strings.Contains(s, "14 hits · y runs it in the timeline") {
		t.Fatalf("no preview:\n%s", s)
	}
	for _, msg := range after {
		if _, ok := msg.(common.SearchMsg); ok {
			t.Fatal("the query ran before it was accepted")
		}
	}
	help := ""
	for _, b := range m.ShortHelp() {
		help += b.Help().Desc + ";"
	}
	if !strings.Contains(help, "run the query") {
		t.Errorf("help %q", help)
	}
	_, cmd = press(m, "y")
	var ran bool
	for _, msg := range msgs(cmd) {
		if sm, ok := msg.(common.SearchMsg); ok && sm.Query == "agent:agent-12 credential:cred-9" {
			ran = true
		}
	}
	if !ran {
		t.Error("y did not run the query")
	}
}

// TestQueryTaskOffline: offline, the query task says it needs a model.
func TestQueryTaskOffline(t *testing.T) {
	m := newPane(t, &fakeCase{}, assist.DefaultConfig())
	m, _ = press(m, "G")
	_, cmd := press(m, "enter")
	got := ""
	for _, msg := range msgs(cmd) {
		if st, ok := msg.(common.StatusMsg); ok {
			got = st.Text
		}
	}
	if !strings.Contains(got, "query needs a model") {
		t.Errorf("offline query: %q", got)
	}
}

// TestStreamShowsClaimsAsTheyComplete: once a claim's object closes, the
// stream shows it as a claim, then the words of the next one.
func TestStreamShowsClaimsAsTheyComplete(t *testing.T) {
	ws := &fakeCase{packet: assist.Packet{Sent: 3, Total: 5}, ask: func(_ context.Context, req incident.AskRequest) (assist.Result, error) {
		req.OnChunk(`{"claims":[{"text":"agent-7 probed pastebin","event_ids":["ev04"]},`)
		req.OnChunk(`{"text":"then it re`)
		return assist.Result{}, nil
	}}
	m := newPane(t, ws, online)
	m, cmd := press(m, "enter")
	m, _ = runUntil(t, m, cmd, func(tea.Msg) bool { return true })
	m, cmd = press(m, "y")
	m, cmd = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(chunkMsg); return ok })
	s := screen(m)
	if !strings.Contains(s, "1. agent-7 probed pastebin {ev04}") || !strings.Contains(s, "1 claim so far, checked when the answer is complete") || strings.Contains(s, `"event_ids"`) {
		t.Errorf("first claim:\n%s", s)
	}
	m, _ = runUntil(t, m, cmd, func(msg tea.Msg) bool { _, ok := msg.(chunkMsg); return ok })
	if s := screen(m); !strings.Contains(s, `{"text":"then it re`) || !strings.Contains(s, "1. agent-7 probed pastebin") {
		t.Errorf("the claim on its way:\n%s", s)
	}
}
