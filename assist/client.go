package assist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Client sends evidence packets to one OpenAI-compatible endpoint. It
// offers the model no tools and keeps the API key out of every error and
// result. It is safe for concurrent use.
type Client struct {
	cfg   Config
	http  Doer
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
}

// Option adjusts a Client.
type Option func(*Client)

// Doer sends an HTTP request; *http.Client is one.
type Doer interface {
	Do(*http.Request) (*http.Response, error)
}

// WithHTTPClient sends requests through h (tests, proxies).
func WithHTTPClient(h Doer) Option { return func(c *Client) { c.http = h } }

// WithSleep replaces the wait between retries (tests).
func WithSleep(f func(context.Context, time.Duration) error) Option {
	return func(c *Client) { c.sleep = f }
}

// NewClient validates cfg and returns a client for it.
func NewClient(cfg Config, opts ...Option) (*Client, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultConfig().Timeout
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Client{cfg: cfg, http: &http.Client{}, sleep: sleepCtx, now: time.Now}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// Config returns the client's configuration.
func (c *Client) Config() Config { return c.cfg }

// Result is one exchange, as the journal records it. It never holds the
// API key.
type Result struct {
	Task     Task   `json:"task"`
	Model    string `json:"model"`
	Endpoint string `json:"endpoint,omitempty"` // host only
	// EventIDs are the ids of the events the packet sent.
	EventIDs []string `json:"event_ids"`
	Sent     int      `json:"sent"`
	Total    int      `json:"total"`
	// Account is the packet's account of what was sent (Packet.SentLine):
	// the whole incident or a selection, and what was left out and why.
	Account    string `json:"account,omitempty"`
	Redactions int    `json:"redactions"`
	Injections []Flag `json:"injections,omitempty"`
	// PromptDigest is the sha256 of the exact messages sent.
	PromptDigest string `json:"prompt_digest,omitempty"`
	// Raw is the reply as received: make it printable before showing it.
	Raw      string        `json:"raw,omitempty"`
	Answer   Answer        `json:"answer"`
	Duration time.Duration `json:"duration"`
	Offline  bool          `json:"offline,omitempty"`
	// JSONSchema: the request that answered asked for json_schema output.
	JSONSchema bool `json:"json_schema"`
	Attempts   int  `json:"attempts,omitempty"`
	// PromptTokens is the request's size as cordon counted it (with
	// Tokenizer), ContextTokens the model's context it was fitted to and
	// ReplyTokens the max_tokens sent.
	PromptTokens  int    `json:"prompt_tokens,omitempty"`
	ContextTokens int    `json:"context_tokens,omitempty"`
	ReplyTokens   int    `json:"max_tokens,omitempty"`
	Tokenizer     string `json:"tokenizer,omitempty"`
	// Suggestion is the query task's query, checked and (by the case)
	// counted; nil for the other tasks.
	Suggestion *Suggestion `json:"suggestion,omitempty"`
}

// Run asks the model to do task over packet p and waits for the whole
// reply. The scope gate runs first; a refused request sends nothing.
// With an offline configuration, summarize and timeline are answered by
// Offline and the other tasks fail with ErrNeedsEndpoint.
func (c *Client) Run(ctx context.Context, task Task, question string, p Packet) (Result, error) {
	return c.exchange(ctx, task, question, p, nil)
}

// Stream is Run with the reply streamed: onChunk receives each piece of
// text as it arrives, as the model wrote it (the reader makes it
// printable where it shows it). Cancelling ctx stops the stream and
// Stream returns ctx's error.
func (c *Client) Stream(ctx context.Context, task Task, question string, p Packet, onChunk func(string)) (Result, error) {
	if onChunk == nil {
		onChunk = func(string) {}
	}
	return c.exchange(ctx, task, question, p, onChunk)
}

func (c *Client) exchange(ctx context.Context, task Task, question string, p Packet, onChunk func(string)) (Result, error) {
	if err := Gate(task, question); err != nil {
		return Result{}, err
	}
	if task.NeedsQuestion() && strings.TrimSpace(question) == "" {
		return Result{}, ErrNoQuestion
	}
	if c.cfg.Offline {
		return Offline(task, p, p.Findings)
	}
	start := c.now()
	p = c.cfg.Fit(task, question, p)
	msgs, redactions, err := Messages(task, question, p)
	if err != nil {
		return Result{}, err
	}
	res := Result{
		Task: task, Model: c.cfg.Model, Endpoint: c.cfg.Host(), EventIDs: p.EventIDs(),
		Sent: p.Sent, Total: p.Total, Account: p.SentLine(), Redactions: redactions, Injections: p.Injections,
		PromptDigest: Digest(msgs), JSONSchema: c.cfg.JSONSchema,
		PromptTokens: p.PromptTokens, ContextTokens: p.ContextTokens, ReplyTokens: p.ReplyTokens, Tokenizer: p.Tokenizer,
	}
	timeout := c.cfg.AttemptTimeout(p.PromptTokens)
	retries, shrunk := 0, false
	for {
		res.Attempts++
		var schema json.RawMessage
		if res.JSONSchema {
			schema = schemaOf(task)
		}
		text, finish, ae := c.attempt(ctx, msgs, schema, onChunk, timeout)
		if ae == nil {
			res.Raw = text
			if task == TaskQuery {
				s, a := ParseSuggestion(text)
				a.Truncated = finish == openai.FinishReasonLength
				res.Suggestion, res.Answer = &s, Verify(a, p)
			} else {
				res.Answer = Verify(ParseReply(text, finish == openai.FinishReasonLength), p)
			}
			res.Duration = c.now().Sub(start)
			return res, nil
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		switch {
		case errors.Is(ae.err, context.DeadlineExceeded):
			return res, &callError{ErrTimeout, fmt.Sprintf("no answer from host %s within %s (for %d prompt tokens): raise the assistant's timeout or timeout_per_1k_tokens, or try a smaller packet", c.cfg.Host(), timeout, p.PromptTokens)}
		case ae.overflow && !shrunk:
			// Once: the count was short of the server's, or the context
			// is smaller than configured. Drop the least relevant events
			// and say so.
			shrunk = true
			p = c.shrinkForOverflow(task, question, p, ae.nctx)
			if msgs, redactions, err = Messages(task, question, p); err != nil {
				return res, err
			}
			res.EventIDs, res.Sent, res.Account, res.Redactions = p.EventIDs(), p.Sent, p.SentLine(), redactions
			res.Injections, res.PromptDigest = p.Injections, Digest(msgs)
			res.PromptTokens, res.ContextTokens = p.PromptTokens, p.ContextTokens
			timeout = c.cfg.AttemptTimeout(p.PromptTokens)
			continue
		case res.JSONSchema && ae.schemaRejected():
			// Once, and not counted as a retry: the endpoint works, it only
			// lacks structured output; the prompt still asks for JSON.
			res.JSONSchema = false
			continue
		case ae.retryable() && retries < c.cfg.MaxRetries:
			if err := c.sleep(ctx, backoff(retries, ae.retryAfter, c.now())); err != nil {
				return res, err
			}
			retries++
			continue
		}
		return res, c.explain(ae)
	}
}

// answerSchema is the JSON schema every task's reply follows.
var answerSchema = json.RawMessage(`{"type":"object","properties":{"claims":{"type":"array","items":{"type":"object","properties":{"text":{"type":"string"},"event_ids":{"type":"array","items":{"type":"string"}},"phase":{"type":"string","enum":["detect","triage","attribute","contain","eradicate","recover","review"]}},"required":["text","event_ids"],"additionalProperties":false}},"notes":{"type":"string"}},"required":["claims"],"additionalProperties":false}`)

// schemaOf is the JSON schema of task's reply.
func schemaOf(task Task) json.RawMessage {
	if task == TaskQuery {
		return querySchema
	}
	return answerSchema
}

// request builds the chat request: messages, model, limits and, when
// asked, the answer schema. No tools and no functions, ever.
func (c *Client) request(msgs []Message, schema json.RawMessage, stream bool) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{Model: c.cfg.Model, Stream: stream}
	// Always sent: llama-server's default is to generate until the
	// context is full, which a small model stuck in a loop does.
	if reasoningModel(c.cfg.Model) {
		// go-openai refuses max_tokens for these before sending anything.
		req.MaxCompletionTokens = c.cfg.ReplyTokens()
	} else {
		req.MaxTokens = c.cfg.ReplyTokens()
	}
	for _, m := range msgs {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if schema != nil {
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "cordon_answer", Schema: schema},
		}
	}
	return req
}

// attempt sends one request and returns the reply text and why the model
// stopped ("length": at the reply's limit).
func (c *Client) attempt(ctx context.Context, msgs []Message, schema json.RawMessage, onChunk func(string), timeout time.Duration) (string, openai.FinishReason, *attemptError) {
	rec := &recorder{doer: c.http, limit: c.cfg.ReplyCap()}
	oc := openai.DefaultConfig(c.cfg.APIKey)
	oc.BaseURL = strings.TrimRight(c.cfg.BaseURL, "/")
	oc.HTTPClient = rec
	api := openai.NewClientWithConfig(oc)
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	fail := func(err error) (string, openai.FinishReason, *attemptError) {
		if actx.Err() != nil {
			err = actx.Err()
		}
		return "", "", c.newAttemptError(err, rec)
	}
	if onChunk == nil {
		resp, err := api.CreateChatCompletion(actx, c.request(msgs, schema, false))
		if err != nil {
			return fail(err)
		}
		if len(resp.Choices) == 0 {
			return fail(errors.New("the reply has no choices"))
		}
		return resp.Choices[0].Message.Content, resp.Choices[0].FinishReason, nil
	}
	stream, err := api.CreateChatCompletionStream(actx, c.request(msgs, schema, true))
	if err != nil {
		return fail(err)
	}
	defer stream.Close()
	var b strings.Builder
	var finish openai.FinishReason
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return b.String(), finish, nil
		}
		if err != nil {
			return fail(err)
		}
		for _, ch := range chunk.Choices {
			if ch.FinishReason != "" {
				finish = ch.FinishReason
			}
			if ch.Delta.Content != "" {
				b.WriteString(ch.Delta.Content)
				onChunk(ch.Delta.Content)
			}
		}
	}
}

// reasoningModel: OpenAI's o-series and gpt-5 take max_completion_tokens.
func reasoningModel(m string) bool {
	return len(m) > 1 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9' || strings.HasPrefix(m, "gpt-5")
}

// shrinkForOverflow makes p smaller after the endpoint refused it as over
// its context: to what the context it reported leaves, and by a quarter
// at least, since the endpoint counted more than cordon did.
func (c *Client) shrinkForOverflow(task Task, question string, p Packet, nctx int) Packet {
	cfg := c.cfg
	target := p.Tokens * 3 / 4
	why := "the endpoint refused the request as over the model's context, so it was sent again smaller"
	if nctx > 0 && nctx < cfg.Context() {
		cfg.ContextTokens = nctx
		why = fmt.Sprintf("the endpoint refused the request as over its context of %d tokens, so it was sent again smaller", nctx)
	}
	target = min(target, cfg.EvidenceBudget(task, question, 0))
	tok := cfg.Tokenizer()
	p = p.Shrink(target, tok.Count, why)
	return cfg.Fit(task, question, p)
}
