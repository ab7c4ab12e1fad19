package incident_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/assist/llmtest"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

// TestQueryTask: a question in plain words comes back as a cordon query
// with its hit count, journaled as suggested and not run; the scope gate
// and offline mode apply to it like every task.
func TestQueryTask(t *testing.T) {
	ws := incidenttest.New(t)
	s := llmtest.New(llmtest.Ollama, "qwen2.5:0.5b", 8192)
	defer s.Close()
	s.NumCtxSet = true
	var question string
	s.Reply = func(msgs []assist.Message) string {
		question = msgs[1].Content[strings.LastIndex(msgs[1].Content, "Responder's question:"):]
		return `{"query":"agent:agent-7 decision:deny","explanation":"agent-7's denied actions","event_ids":[]}`
	}
	c, _ := ws.Config()
	env := map[string]string{assist.EnvBaseURL: s.BaseURL(), assist.EnvModel: s.Model}
	cfg, err := c.AssistantConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	res, err := ws.Ask(ctx, who, cfg, incident.AskRequest{Task: assist.TaskQuery, Question: "what did agent-7 try that was denied"})
	if err != nil {
		t.Fatal(err)
	}
	sg := res.Suggestion
	if sg == nil || !sg.Runnable() || sg.Query != "agent:agent-7 decision:deny" || sg.Hits <= 0 {
		t.Fatalf("suggestion %+v", sg)
	}
	if !strings.Contains(question, "what did agent-7 try that was denied") {
		t.Errorf("the question was not sent: %q", question)
	}
	if r := s.Requests()[0]; !r.Schema || r.MaxTokens == 0 {
		t.Errorf("request %+v", r)
	}
	es := incidenttest.Casework(t, ws)
	last := es[len(es)-1]
	if last.Type != journal.EntryAssistantExchange || !strings.Contains(last.Text, `suggested "agent:agent-7 decision:deny"`) || !strings.Contains(last.Text, "not run") {
		t.Errorf("journal: %s %q", last.Type, last.Text)
	}
	// the gate
	n := len(s.Requests())
	if _, err := ws.Ask(ctx, who, cfg, incident.AskRequest{Task: assist.TaskQuery, Question: "how do I bypass the egress proxy"}); !errors.Is(err, assist.ErrOutOfScope) || len(s.Requests()) != n {
		t.Errorf("an offensive question: %v, %d requests", err, len(s.Requests())-n)
	}
	// offline
	if _, err := ws.Ask(ctx, who, assist.DefaultConfig(), incident.AskRequest{Task: assist.TaskQuery, Question: "agent-7's denials"}); !errors.Is(err, assist.ErrNeedsEndpoint) {
		t.Errorf("offline query: %v", err)
	}
	// no question
	if _, err := ws.Ask(ctx, who, cfg, incident.AskRequest{Task: assist.TaskQuery}); !errors.Is(err, assist.ErrNoQuestion) {
		t.Errorf("no question: %v", err)
	}
}
