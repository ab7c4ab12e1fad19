package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/assist/llmtest"
)

// TestAssistCheckAndQuery: --check says what the endpoint is and what a
// request gets, without sending evidence; the query task prints its query
// and hit count and runs nothing.
func TestAssistCheckAndQuery(t *testing.T) {
	s := llmtest.New(llmtest.Ollama, "qwen2.5:0.5b", 4096)
	defer s.Close()
	s.Reply = func([]assist.Message) string {
		return `{"query":"decision:deny","explanation":"the denied actions","event_ids":[]}`
	}
	t.Setenv("CORDON_LLM_BASE_URL", s.BaseURL())
	t.Setenv("CORDON_LLM_MODEL", s.Model)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("CORDON_LLM_CONTEXT_TOKENS", "")
	t.Setenv("CORDON_LLM_MAX_TOKENS", "")
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("assist", "--incident", dir, "--check")
	if code != 0 {
		t.Fatalf("check: %d %s", code, errOut)
	}
	for _, want := range []string{"endpoint:  ollama at 127.0.0.1:", `("qwen2.5:0.5b": found)`, "context:   4096 tokens (the server's Ollama's default num_ctx)",
		"reply:     up to 1024 tokens", "tokens:    estimated", "overflow:  cut silently by the server", "OLLAMA_CONTEXT_LENGTH"} {
		if !strings.Contains(out, want) {
			t.Errorf("check lacks %q:\n%s", want, out)
		}
	}
	if len(s.Requests()) != 0 {
		t.Errorf("--check sent %d chat requests", len(s.Requests()))
	}

	code, out, errOut = cordon("assist", "--incident", dir, "query", "what", "was", "denied")
	if code != 0 {
		t.Fatalf("query: %d %s", code, errOut)
	}
	if !strings.Contains(out, "suggested query (not run): decision:deny") || !strings.Contains(out, "hits · run it: cordon search --incident") {
		t.Errorf("query output:\n%s", out)
	}
	if r := s.Requests(); len(r) != 1 || r[0].PromptTokens > 4096-1024 || r[0].Truncated {
		t.Errorf("requests %+v", r)
	}

	t.Setenv("CORDON_LLM_MODEL", "llama3")
	if code, _, errOut := cordon("assist", "--incident", dir, "--check"); code == 0 || !strings.Contains(errOut, "not served") {
		t.Errorf("check of a model not served: %d %s", code, errOut)
	}
}
