package assist_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/assist/llmtest"
	"github.com/cordon-ir/cordon/evidence"
)

// bigStore indexes n events shaped like real ones: hex ids, times, IPs,
// ports, paths and commands, the text tokenizers split finest.
func bigStore(t *testing.T, n int) evidence.Store {
	t.Helper()
	st, err := evidence.Open(filepath.Join(t.TempDir(), "idx"), evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	t0 := time.Date(2026, 7, 21, 10, 0, 0, 0, time.UTC)
	evs := make([]evidence.Event, n)
	for i := range evs {
		sum := sha256.Sum256([]byte(fmt.Sprint(i)))
		evs[i] = evidence.Event{
			ID: hex.EncodeToString(sum[:8]), Time: t0.Add(time.Duration(i) * 1700 * time.Millisecond), Source: "sensor", Format: "falco",
			Kind: evidence.KindProcExec, Agent: fmt.Sprintf("agent-%d", i%13), Container: hex.EncodeToString(sum[8:20]),
			Message: fmt.Sprintf("execve pid=%d ppid=%d /usr/bin/curl -s http://10.0.%d.%d:%d/v1/upload?part=%d -o /tmp/.cache/%x", 4000+i, 3000+i, i%256, (i*7)%256, 8000+i%1000, i, sum[20:24]),
			DstIP:   fmt.Sprintf("10.0.%d.%d", i%256, (i*7)%256), DstPort: 8000 + i%1000,
		}
	}
	if _, err := st.Index(context.Background(), evs, nil); err != nil {
		t.Fatal(err)
	}
	return st
}

var idLine = regexp.MustCompile(`(?m)^([0-9a-f]{16}) `)

// citingReply answers with one claim per event line, up to n, each
// citing its line's id: long enough to run past a small max_tokens.
func citingReply(n int) func([]assist.Message) string {
	return func(msgs []assist.Message) string {
		ids := idLine.FindAllStringSubmatch(msgs[len(msgs)-1].Content, n)
		var claims []string
		for i, m := range ids {
			claims = append(claims, fmt.Sprintf(`{"text":"step %d: the agent ran curl to an internal address","event_ids":["%s"],"phase":"triage"}`, i+1, m[1]))
		}
		return `{"claims":[` + strings.Join(claims, ",") + `],"notes":"read from the events"}`
	}
}

func packetOf(t *testing.T, st evidence.Store, cfg assist.Config, task assist.Task) assist.Packet {
	t.Helper()
	p, err := assist.BuildPacket(context.Background(), st, assist.Selection{Whole: true}, cfg.PacketBudget(task, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Fit(task, "", p)
}

func clientFor(t *testing.T, s *llmtest.Server, edit func(*assist.Config)) (*assist.Client, assist.Config) {
	t.Helper()
	cfg := assist.Config{BaseURL: s.BaseURL(), Model: s.Model, JSONSchema: true, MaxRetries: -1}
	if edit != nil {
		edit(&cfg)
	}
	c, err := assist.NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, cfg
}

// TestProbeFindsEachServer: each kind of server is named, and the context
// it gives the model read from where it says it.
func TestProbeFindsEachServer(t *testing.T) {
	for _, tc := range []struct {
		kind    llmtest.Kind
		model   string
		slots   int
		context int
		from    string
	}{
		{llmtest.LlamaServer, "qwen2.5-0.5b-instruct", 1, 8192, "/props n_ctx"},
		{llmtest.LlamaServer, "qwen2.5-0.5b-instruct", 2, 8192, "/props n_ctx / 2 slots"},
		{llmtest.VLLM, "Qwen/Qwen2.5-0.5B-Instruct", 1, 32768, "/v1/models max_model_len"},
		{llmtest.Ollama, "qwen2.5:0.5b", 1, 4096, "Ollama's default num_ctx"},
		{llmtest.OpenAI, "gpt-4o-mini", 1, 128000, ""},
	} {
		s := llmtest.New(tc.kind, tc.model, tc.context)
		s.Slots = tc.slots
		c, cfg := clientFor(t, s, nil)
		p := c.Probe(context.Background())
		s.Close()
		want := tc.context / tc.slots
		if tc.kind == llmtest.OpenAI {
			want = 0 // OpenAI says nothing; cordon knows its models
		}
		if p.Endpoint != string(tc.kind) || !p.ModelFound || p.ContextTokens != want || p.ContextFrom != tc.from {
			t.Errorf("%s (%d slots): %+v", tc.kind, tc.slots, p)
		}
		if got := p.Apply(cfg).Context(); got != tc.context/tc.slots {
			t.Errorf("%s: context applied %d, want %d", tc.kind, got, tc.context/tc.slots)
		}
		if tc.kind == llmtest.Ollama && (len(p.Notes) == 0 || !strings.Contains(p.Notes[0], "OLLAMA_CONTEXT_LENGTH")) {
			t.Errorf("ollama at its default context says nothing: %v", p.Notes)
		}
	}
	// Ollama with num_ctx in its Modelfile
	s := llmtest.New(llmtest.Ollama, "qwen2.5:0.5b", 16384)
	defer s.Close()
	s.NumCtxSet = true
	c, _ := clientFor(t, s, nil)
	if p := c.Probe(context.Background()); p.ContextTokens != 16384 || len(p.Notes) != 0 {
		t.Errorf("ollama with num_ctx: %+v", p)
	}
}

// TestEightKContextFits: a model with an 8k context never receives a
// prompt over 8k minus max_tokens, counted by the server with a real
// tokenizer, and max_tokens is always sent.
func TestEightKContextFits(t *testing.T) {
	st := bigStore(t, 600)
	for _, kind := range []llmtest.Kind{llmtest.LlamaServer, llmtest.VLLM, llmtest.Ollama} {
		s := llmtest.New(kind, "small-model", 8192)
		s.Reply = citingReply(3)
		c, cfg := clientFor(t, s, func(c *assist.Config) { c.ContextTokens = 8192 })
		p := packetOf(t, st, cfg, assist.TaskSummarize)
		res, err := c.Stream(context.Background(), assist.TaskSummarize, "", p, nil)
		s.Close()
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		reqs := s.Requests()
		if len(reqs) != 1 || reqs[0].MaxTokens != assist.DefaultMaxTokens || reqs[0].Truncated || reqs[0].Tools {
			t.Fatalf("%s: requests %+v", kind, reqs)
		}
		if got := reqs[0].PromptTokens; got > 8192-assist.DefaultMaxTokens || got < 4000 {
			t.Errorf("%s: the server counted %d prompt tokens for an 8k context (cordon %d)", kind, got, p.PromptTokens)
		}
		if p.Sent >= 600 || !strings.Contains(res.Account, "over budget") || len(res.Answer.Claims) != 3 || res.Answer.Uncited() != 0 {
			t.Errorf("%s: sent %d, account %q, claims %+v", kind, p.Sent, res.Account, res.Answer.Claims)
		}
	}
}

// TestContextOverflowShrinksAndRetriesOnce: a server whose tokenizer
// counts more than cordon's refuses the first request with its own error;
// cordon drops events, says so, and the second request fits.
func TestContextOverflowShrinksAndRetriesOnce(t *testing.T) {
	st := bigStore(t, 600)
	for _, kind := range []llmtest.Kind{llmtest.LlamaServer, llmtest.VLLM, llmtest.OpenAI} {
		model, scale, configured := "small-model", 1.9, 8192
		if kind == llmtest.OpenAI {
			// counted exactly, but configured for more than the server has
			model, scale, configured = "gpt-4o-mini", 1, 16384
		}
		s := llmtest.New(kind, model, 8192)
		s.Scale = scale
		s.Reply = citingReply(2)
		c, cfg := clientFor(t, s, func(c *assist.Config) { c.ContextTokens = configured })
		p := packetOf(t, st, cfg, assist.TaskTimeline)
		res, err := c.Run(context.Background(), assist.TaskTimeline, "", p)
		s.Close()
		reqs := s.Requests()
		if err != nil || len(reqs) != 2 || reqs[0].Status != 400 || reqs[1].Status != 200 {
			t.Fatalf("%s: %v; requests %+v", kind, err, reqs)
		}
		if res.Sent >= p.Sent || !strings.Contains(res.Account, "refused the request as over") || !strings.Contains(res.Account, "sent again smaller") {
			t.Errorf("%s: sent %d of %d first sent; account %q", kind, res.Sent, p.Sent, res.Account)
		}
		if len(res.EventIDs) != res.Sent || res.Answer.Uncited() != 0 {
			t.Errorf("%s: %d ids for %d sent, %d uncited", kind, len(res.EventIDs), res.Sent, res.Answer.Uncited())
		}
	}
	// and only once: a server that counts far more still refuses
	s := llmtest.New(llmtest.LlamaServer, "m", 8192)
	defer s.Close()
	s.Scale = 8
	c, cfg := clientFor(t, s, func(c *assist.Config) { c.ContextTokens = 8192 })
	_, err := c.Run(context.Background(), assist.TaskTimeline, "", packetOf(t, st, cfg, assist.TaskTimeline))
	if !errors.Is(err, assist.ErrContext) || len(s.Requests()) != 2 || !strings.Contains(err.Error(), assist.EnvContextTokens) {
		t.Errorf("after one retry: %v (%d requests)", err, len(s.Requests()))
	}
}

// TestUnknownModelEachServer: each server's own 404 body reads as the
// model not being found.
func TestUnknownModelEachServer(t *testing.T) {
	st := bigStore(t, 20)
	for _, kind := range []llmtest.Kind{llmtest.Ollama, llmtest.VLLM, llmtest.OpenAI} {
		s := llmtest.New(kind, "served-model", 8192)
		c, cfg := clientFor(t, s, func(c *assist.Config) { c.Model = "gpt-4o-typo" })
		_, err := c.Run(context.Background(), assist.TaskSummarize, "", packetOf(t, st, cfg, assist.TaskSummarize))
		probe := c.Probe(context.Background())
		s.Close()
		if !errors.Is(err, assist.ErrModelNotFound) || !strings.Contains(err.Error(), assist.EnvModel) {
			t.Errorf("%s: %v", kind, err)
		}
		if probe.ModelFound || len(probe.Notes) == 0 {
			t.Errorf("%s: the probe found the model: %+v", kind, probe)
		}
	}
}

// TestReplyCutAtMaxTokens: the server stops at max_tokens mid-JSON, as
// real ones do; the answer keeps the claims that were complete, marked
// truncated, streamed or not.
func TestReplyCutAtMaxTokens(t *testing.T) {
	st := bigStore(t, 40)
	for _, stream := range []bool{false, true} {
		s := llmtest.New(llmtest.LlamaServer, "m", 8192)
		s.Reply = citingReply(30)
		c, cfg := clientFor(t, s, func(c *assist.Config) { c.MaxTokens = 200 })
		p := packetOf(t, st, cfg, assist.TaskTimeline)
		var res assist.Result
		var err error
		var chunks []string
		if stream {
			res, err = c.Stream(context.Background(), assist.TaskTimeline, "", p, func(s string) { chunks = append(chunks, s) })
		} else {
			res, err = c.Run(context.Background(), assist.TaskTimeline, "", p)
		}
		s.Close()
		if err != nil {
			t.Fatal(err)
		}
		a := res.Answer
		if !a.Truncated || !a.Structured || len(a.Claims) < 3 || len(a.Claims) >= 30 || a.Uncited() != 0 {
			t.Errorf("stream %v: truncated %v, %d claims, %d uncited", stream, a.Truncated, len(a.Claims), a.Uncited())
		}
		if stream {
			// the claims complete as the chunks arrive
			seen, text := 0, ""
			for _, ch := range chunks {
				text += ch
				claims, _, _ := assist.PartialClaims(text)
				if len(claims) < seen {
					t.Fatalf("complete claims went from %d to %d", seen, len(claims))
				}
				seen = len(claims)
			}
			if seen != len(a.Claims) || len(chunks) < 10 {
				t.Errorf("streamed %d chunks, %d claims seen, %d in the answer", len(chunks), seen, len(a.Claims))
			}
		}
	}
}

// TestSchemaIgnored: a server that ignores json_schema (older Ollama) and
// a model that fences its JSON still give a structured answer.
func TestSchemaIgnored(t *testing.T) {
	st := bigStore(t, 20)
	s := llmtest.New(llmtest.Ollama, "qwen2.5:0.5b", 4096)
	defer s.Close()
	s.IgnoreSchema = true
	s.Reply = citingReply(2)
	c, cfg := clientFor(t, s, nil)
	cfg = c.Probe(context.Background()).Apply(cfg)
	c, _ = assist.NewClient(cfg)
	res, err := c.Run(context.Background(), assist.TaskSummarize, "", packetOf(t, st, cfg, assist.TaskSummarize))
	if err != nil || !res.Answer.Structured || len(res.Answer.Claims) != 2 || res.Answer.Uncited() != 0 {
		t.Fatalf("%v: %+v", err, res.Answer)
	}
	if r := s.Requests()[0]; r.Truncated || r.PromptTokens > 4096-assist.DefaultMaxTokens {
		t.Errorf("ollama at its default context got %d prompt tokens (cut: %v)", r.PromptTokens, r.Truncated)
	}
}
