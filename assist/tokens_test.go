package assist

import (
	"strings"

	"testing"
	"time"

	"github.com/cordon-ir/cordon/detect"
)

func TestTokenizerFor(t *testing.T) {
	for _, tc := range []struct {
		model, want string
	}{
		{"gpt-4o-mini", "o200k_base"}, {"openai/gpt-4.1", "o200k_base"}, {"o3-mini", "o200k_base"}, {"gpt-5", "o200k_base"},
		{"gpt-4", "cl100k_base"}, {"gpt-3.5-turbo", "cl100k_base"},
		{"qwen2.5:0.5b", Estimate}, {"llama3.1", Estimate}, {"", Estimate}, {"ollama", Estimate},
	} {
		if got := TokenizerFor(tc.model); got.Name() != tc.want || got.Exact() != (tc.want != Estimate) {
			t.Errorf("%q: %s (exact %v), want %s", tc.model, got.Name(), got.Exact(), tc.want)
		}
	}
	// "hello world" is 2 tokens in o200k_base
	if n := TokenizerFor("gpt-4o").Count("hello world"); n != 2 {
		t.Errorf("o200k counts %d tokens in hello world", n)
	}
}

// TestEstimateHexIDs is the regression test of "the packet is about twice
// the size cordon thinks": bytes/4 made a 16-hex id 4 tokens; Qwen and
// Gemma split every digit off, 10 or more.
func TestEstimateHexIDs(t *testing.T) {
	id := "3f9a0c12b7e45d61"
	if n := estimateTokens(id); n < 10 {
		t.Errorf("%s estimated at %d tokens", id, n)
	}
	line := "3f9a0c12b7e45d61 2026-07-21T10:01:00.000Z agent-7 net_request deny | pastebin.com:443 | CONNECT pastebin.com:443 denied"
	if n, approx := estimateTokens(line), len(line)/4; n < approx*3/2 {
		t.Errorf("an event line estimated at %d tokens, bytes/4 gives %d", n, approx)
	}
}

func TestLimitsDerived(t *testing.T) {
	c := Config{BaseURL: "http://127.0.0.1:8080/v1", Model: "local", ContextTokens: 8192}
	if c.ReplyTokens() != DefaultMaxTokens || c.PromptLimit() != 8192-DefaultMaxTokens {
		t.Fatalf("reply %d, prompt limit %d", c.ReplyTokens(), c.PromptLimit())
	}
	b := c.EvidenceBudget(TaskSummarize, "", 0)
	sys, _ := SystemPrompt(TaskSummarize)
	if b <= 0 || b >= c.PromptLimit()-estimateTokens(sys) {
		t.Errorf("evidence budget %d with a prompt limit of %d", b, c.PromptLimit())
	}
	if got := c.EvidenceBudget(TaskSummarize, "", 1000); got != 1000 {
		t.Errorf("budget_tokens 1000 gives %d", got)
	}
	big := Config{Model: "gpt-4o"}
	if big.Context() != 128000 || big.EvidenceBudget(TaskSummarize, "", 0) != MaxEvidenceTokens {
		t.Errorf("gpt-4o: context %d, budget %d", big.Context(), big.EvidenceBudget(TaskSummarize, "", 0))
	}
	if d := c.AttemptTimeout(10000); d != DefaultTimeout+DefaultTimeoutPer1K*11024/1000 {
		t.Errorf("timeout for 10k tokens: %s", d)
	}
	fixed := Config{Timeout: time.Minute, TimeoutPer1K: -1}
	if d := fixed.AttemptTimeout(10000); d != time.Minute {
		t.Errorf("a fixed timeout scaled to %s", d)
	}
	bad := c
	bad.MaxTokens = 6000
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), EnvMaxTokens) {
		t.Errorf("max tokens 6000 of an 8k context: %v", err)
	}
}

func TestEnvLimits(t *testing.T) {
	env := map[string]string{EnvBaseURL: "http://127.0.0.1:11434/v1", EnvModel: "qwen2.5:0.5b", EnvContextTokens: "16384", EnvMaxTokens: "512"}
	c := ConfigFromEnv(func(k string) string { return env[k] })
	if c.ContextTokens != 16384 || c.MaxTokens != 512 {
		t.Errorf("context %d, max tokens %d", c.ContextTokens, c.MaxTokens)
	}
	if _, err := EnvInt(func(string) string { return "lots" }, EnvMaxTokens, 0); err == nil {
		t.Error("max tokens \"lots\" accepted")
	}
}

func TestFigures(t *testing.T) {
	p := Packet{PromptTokens: 10040, ContextTokens: 16384, ReplyTokens: 1024, Tokenizer: Estimate}
	if got := p.Figures(); got != "≈10.0k of 16k tokens, reply up to 1k, estimated" {
		t.Errorf("figures %q", got)
	}
	p.Tokenizer = "o200k_base"
	p.ContextTokens = 128000
	if got := p.Figures(); got != "≈10.0k of 128k tokens, reply up to 1k" {
		t.Errorf("figures %q", got)
	}
}

// TestFitShrinksToTheContext: a packet built for a large budget is cut to
// a small context, the events of no finding first, and says so.
func TestFitShrinksToTheContext(t *testing.T) {
	st := openStore(t, incidentEvents())
	tok := Tokenizer{}
	p, err := BuildPacket(t.Context(), st, Selection{Whole: true, Findings: []detect.Finding{probeFinding()}}, Budget{Count: tok.Count})
	if err != nil || p.Sent != 14 {
		t.Fatalf("packet: %d events, %v", p.Sent, err)
	}
	msgs, _, _ := Messages(TaskSummarize, "", p)
	full := tok.CountMessages(msgs)
	c := Config{Model: "local", ContextTokens: full + 256 - 300, MaxTokens: 256}
	fit := c.Fit(TaskSummarize, "", p)
	if fit.PromptTokens > c.PromptLimit() || fit.Sent >= p.Sent || fit.Sent == 0 {
		t.Fatalf("fit: %d tokens of a %d limit, %d of %d events", fit.PromptTokens, c.PromptLimit(), fit.Sent, p.Sent)
	}
	if fit.FindingEvents != 4 {
		t.Errorf("the finding's events went first: %d of 4 kept", fit.FindingEvents)
	}
	if !strings.Contains(fit.SentLine(), "left out, fitted to the model's context") {
		t.Errorf("the account does not say it was shrunk: %q", fit.SentLine())
	}
	if again := c.Fit(TaskSummarize, "", fit); again.Sent != fit.Sent {
		t.Errorf("a packet that fits was shrunk again: %d -> %d", fit.Sent, again.Sent)
	}
}

func TestContextOfAnOllamaNotProbed(t *testing.T) {
	c := Config{BaseURL: "http://127.0.0.1:11434/v1", Model: "qwen2.5:0.5b", Endpoint: "ollama"}
	if c.Context() != 4096 {
		t.Errorf("ollama unprobed: %d", c.Context())
	}
	c.ContextTokens = 8192
	if c.Context() != 8192 {
		t.Errorf("ollama configured: %d", c.Context())
	}
	if err := (Config{BaseURL: "http://x:1/v1", Model: "m", Endpoint: "lmstudio"}).Validate(); err == nil || !strings.Contains(err.Error(), "llama-server") {
		t.Errorf("unknown endpoint: %v", err)
	}
}

func TestProbeKeyHoldsNoCredentials(t *testing.T) {
	k := ProbeKey(Config{BaseURL: "https://user:s3cret@llm.example:8443/v1/?key=abc", Model: "m"})
	if strings.Contains(k, "s3cret") || strings.Contains(k, "abc") || k != "https://llm.example:8443/v1 m" {
		t.Errorf("probe key %q", k)
	}
}
