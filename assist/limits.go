package assist

import (
	"fmt"
	"strings"
	"time"
)

// MaxEvidenceTokens caps the evidence of a model with a large context: a
// 128k-token model could take a whole incident, but the answer does not
// get better past a few hundred events and the bill does.
const MaxEvidenceTokens = 16000

// contextMargin is kept free of the context beyond the reply: the
// packet's account of itself is written after its size is known.
const contextMargin = 64

// ReplyTokens is the reply's limit sent with every request.
func (c Config) ReplyTokens() int {
	if c.MaxTokens > 0 {
		return c.MaxTokens
	}
	return DefaultMaxTokens
}

// Context is the model's context size: configured (or probed), else
// known for the model, else the server's default, else
// DefaultContextTokens.
func (c Config) Context() int {
	if c.ContextTokens > 0 {
		return c.ContextTokens
	}
	if n := knownContext(c.Model); n > 0 {
		return n
	}
	if p, ok := PresetNamed(c.Endpoint); ok && p.DefaultContext > 0 {
		return p.DefaultContext // Ollama's, which it enforces by cutting
	}
	return DefaultContextTokens
}

// Tokenizer is what c's model is counted with.
func (c Config) Tokenizer() Tokenizer { return TokenizerFor(c.Model) }

// PromptLimit is the most a request's messages may take: the context less
// the reply's limit.
func (c Config) PromptLimit() int { return c.Context() - c.ReplyTokens() }

// AttemptTimeout is how long one attempt may take for a prompt of
// promptTokens: the fixed part, and the per-1k part for the prompt and the
// reply's limit, which is what a CPU-only model spends its time on.
func (c Config) AttemptTimeout(promptTokens int) time.Duration {
	base := c.Timeout
	if base <= 0 {
		base = DefaultTimeout
	}
	per := c.TimeoutPer1K
	switch {
	case per == 0:
		per = DefaultTimeoutPer1K
	case per < 0:
		per = 0
	}
	return base + per*time.Duration(promptTokens+c.ReplyTokens())/1000
}

// EvidenceBudget is how many tokens the evidence of task may take with c:
// the prompt's limit less the system prompt, the framing and the
// question, counted with c's tokenizer; capped by MaxEvidenceTokens and,
// when set, by configured (cordon.yaml's budget_tokens).
func (c Config) EvidenceBudget(task Task, question string, configured int) int {
	fixed, _, err := Messages(task, question, Packet{})
	n := c.PromptLimit() - contextMargin
	if err == nil {
		n -= c.Tokenizer().CountMessages(fixed)
	}
	n = min(n, MaxEvidenceTokens)
	if configured > 0 {
		n = min(n, configured)
	}
	return max(n, 0)
}

// PacketBudget is the packet's budget for task with c, its lines counted
// with c's tokenizer.
func (c Config) PacketBudget(task Task, question string, configured int) Budget {
	tok := c.Tokenizer()
	return Budget{Tokens: c.EvidenceBudget(task, question, configured), Count: tok.Count}
}

// Fit makes p fit c's context for task: it counts the exact messages and,
// when they are over the prompt's limit, drops the least relevant events
// until they are not (the counts of lines do not always add up to the
// count of their text). It records the figures the confirmation shows.
func (c Config) Fit(task Task, question string, p Packet) Packet {
	tok := c.Tokenizer()
	limit := c.PromptLimit()
	for range 8 {
		msgs, _, err := Messages(task, question, p)
		if err != nil {
			return p
		}
		n := tok.CountMessages(msgs)
		p.PromptTokens, p.ContextTokens, p.ReplyTokens, p.Tokenizer = n, c.Context(), c.ReplyTokens(), tok.Name()
		if n <= limit || len(p.Events) == 0 {
			return p
		}
		p = p.Shrink(p.Tokens-(n-limit)-contextMargin, tok.Count, "")
	}
	return p
}

// Figures is the confirmation's account of a packet's size against the
// model's context: "≈10.0k of 16k tokens, reply up to 1k".
func (p Packet) Figures() string {
	if p.ContextTokens == 0 {
		return fmt.Sprintf("≈%s tokens", kilo(p.Tokens))
	}
	s := fmt.Sprintf("≈%s of %s tokens, reply up to %s", kilo(p.PromptTokens), kilo(p.ContextTokens), kilo(p.ReplyTokens))
	if p.Tokenizer == Estimate {
		s += ", estimated"
	}
	return s
}

// kilo writes a token count as people say it: 950, 10.0k, 16k.
func kilo(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	case n%1024 == 0:
		return fmt.Sprintf("%dk", n/1024)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

// knownContext is the context size of the OpenAI models, which publish
// none through the API.
func knownContext(model string) int {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	switch {
	case strings.HasPrefix(m, "gpt-4.1"):
		return 1047576
	case strings.HasPrefix(m, "gpt-5"):
		return 272000 // the input part of its 400k
	case reasoningModel(m):
		return 200000
	case strings.HasPrefix(m, "gpt-4o"), strings.HasPrefix(m, "chatgpt-4o"), strings.HasPrefix(m, "gpt-4-turbo"), strings.HasPrefix(m, "gpt-4.5"):
		return 128000
	case strings.HasPrefix(m, "gpt-4"):
		return 8192
	case strings.HasPrefix(m, "gpt-3.5"):
		return 16385
	}
	return 0
}
