package llmtest

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestEachServerRefusesWhatItsOwnRefuses: each kind refuses a request by
// its own rule, the one the real server applies. vLLM counts the reply's
// max_tokens against the context as well as the prompt (a prompt that
// fits with no room for the reply is refused); llama-server and OpenAI
// count the prompt only.
func TestEachServerRefusesWhatItsOwnRefuses(t *testing.T) {
	const ctx = 200
	prompt := strings.Repeat("evidence line ", 40) // well under 200 tokens
	for _, c := range []struct {
		kind      Kind
		maxTokens int
		want      int
	}{
		{VLLM, 10, http.StatusOK},
		{VLLM, 190, http.StatusBadRequest},
		{LlamaServer, 190, http.StatusOK},
		{OpenAI, 190, http.StatusOK},
	} {
		s := New(c.kind, "m", ctx)
		body := `{"model":"m","max_tokens":` + itoa(c.maxTokens) + `,"messages":[{"role":"user","content":"` + prompt + `"}]}`
		resp, err := http.Post(s.BaseURL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		reqs := s.Requests()
		s.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s, max_tokens %d, prompt %d tokens of %d: status %d, want %d", c.kind, c.maxTokens, reqs[0].PromptTokens, ctx, resp.StatusCode, c.want)
		}
		if reqs[0].PromptTokens >= ctx-10 {
			t.Fatalf("the prompt is %d tokens: the case needs one that fits alone", reqs[0].PromptTokens)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
