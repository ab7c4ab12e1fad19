package incident_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/assist/llmtest"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

// TestLocalLlamaServerEightK: a sample incident asked of a llama-server
// with an 8k context that cordon was not told of: the probe finds the
// context, the prompt fits it by the server's own count, the probe is
// kept in the workspace and not asked again.
func TestLocalLlamaServerEightK(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	s := llmtest.New(llmtest.LlamaServer, "qwen2.5-0.5b-instruct", 8192)
	defer s.Close()
	s.Reply = func(msgs []assist.Message) string {
		return `{"claims":[{"text":"the agent acted","event_ids":["` + strings.Fields(strings.SplitN(msgs[1].Content, "\n", 8)[7])[0] + `"]}]}`
	}
	c, err := ws.Config()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{assist.EnvBaseURL: s.BaseURL(), assist.EnvModel: s.Model}
	cfg, err := c.AssistantConfig(func(k string) string { return env[k] })
	if err != nil || cfg.ContextTokens != 0 {
		t.Fatalf("config %v: %v", cfg, err)
	}
	ctx := context.Background()
	p, err := ws.AskPacket(ctx, cfg, incident.AskRequest{Task: assist.TaskSummarize})
	if err != nil {
		t.Fatal(err)
	}
	if p.ContextTokens != 8192 || p.PromptTokens > 8192-assist.DefaultMaxTokens || !strings.Contains(p.Figures(), "of 8k tokens") {
		t.Fatalf("the confirmation's figures: %s", p.Figures())
	}
	probes := s.Probes()
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	for range 2 {
		if _, err := ws.Ask(ctx, who, cfg, incident.AskRequest{Task: assist.TaskSummarize}); err != nil {
			t.Fatal(err)
		}
	}
	if s.Probes() != probes {
		t.Errorf("probed again: %d requests, then %d", probes, s.Probes())
	}
	for _, r := range s.Requests() {
		if r.PromptTokens > 8192-assist.DefaultMaxTokens || r.MaxTokens != assist.DefaultMaxTokens {
			t.Errorf("the server counted %d prompt tokens with max_tokens %d", r.PromptTokens, r.MaxTokens)
		}
	}
	data, err := os.ReadFile(filepath.Join(ws.Dir, "assistant-probe.json"))
	if err != nil || !strings.Contains(string(data), `"endpoint": "llama-server"`) || strings.Contains(string(data), "Bearer") {
		t.Errorf("kept probe: %s %v", data, err)
	}
	if pr, err := ws.AssistantProbe(ctx, cfg, false); err != nil || pr.ContextTokens != 8192 || s.Probes() != probes {
		t.Errorf("the kept probe: %+v %v (%d probe requests)", pr, err, s.Probes())
	}
	if pr, err := ws.AssistantProbe(ctx, cfg, true); err != nil || pr.Endpoint != "llama-server" || s.Probes() == probes {
		t.Errorf("refresh did not probe: %+v %v", pr, err)
	}
}

// Probes are kept per endpoint and model, read by a read-only open (as a
// served or observer console opens), and asked again once older than
// ProbeTTL.
func TestProbesKeptPerEndpointAndExpire(t *testing.T) {
	ws := incidenttest.New(t)
	ctx := context.Background()
	a := llmtest.New(llmtest.LlamaServer, "model-a", 8192)
	defer a.Close()
	b := llmtest.New(llmtest.Ollama, "model-b", 4096)
	defer b.Close()
	cfg := func(s *llmtest.Server) assist.Config {
		c := assist.DefaultConfig()
		c.BaseURL, c.Model, c.Offline = s.BaseURL(), s.Model, false
		return c
	}
	for _, s := range []*llmtest.Server{a, b} {
		if p, err := ws.AssistantProbe(ctx, cfg(s), false); err != nil || p.Endpoint == "" {
			t.Fatalf("%s: %+v %v", s.Model, p, err)
		}
	}
	dir := ws.Dir
	ws.Close()
	ro, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	pa, pb := a.Probes(), b.Probes()
	for _, s := range []*llmtest.Server{a, b} {
		if p, err := ro.AssistantProbe(ctx, cfg(s), false); err != nil || p.Endpoint == "" {
			t.Errorf("read-only, %s: %+v %v", s.Model, p, err)
		}
	}
	if a.Probes() != pa || b.Probes() != pb {
		t.Errorf("a read-only open probed again: %d→%d, %d→%d", pa, a.Probes(), pb, b.Probes())
	}
	ro.Close()
	// a day and more later, the kept probe is asked again
	data, err := os.ReadFile(filepath.Join(dir, "assistant-probe.json"))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(string(data), time.Now().UTC().Format("2006-01-02"), time.Now().Add(-3*incident.ProbeTTL).UTC().Format("2006-01-02"))
	if err := os.WriteFile(filepath.Join(dir, "assistant-probe.json"), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := incident.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := again.AssistantProbe(ctx, cfg(a), false); err != nil || a.Probes() == pa {
		t.Errorf("an expired probe was not asked again: %v (%d requests)", err, a.Probes())
	}
}
