package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/assist"
)

// Kind is the server a Server behaves like.
type Kind string

// The kinds, named as cordon's presets name them.
const (
	LlamaServer Kind = "llama-server"
	Ollama      Kind = "ollama"
	VLLM        Kind = "vllm"
	OpenAI      Kind = "openai"
)

// Server is a loopback chat-completions server that behaves like one
// kind of real server. Set its fields before the first request.
type Server struct {
	*httptest.Server
	Kind  Kind
	Model string
	// Context is the model's context in tokens: llama-server's n_ctx
	// (shared by Slots), vLLM's max_model_len, Ollama's num_ctx.
	Context int
	Slots   int
	// NumCtxSet: Ollama's Modelfile sets num_ctx; otherwise /api/show has
	// none and the server uses Context as its default.
	NumCtxSet bool
	// Trained is the context the model was trained for, as /v1/models
	// (llama-server) and /api/show (Ollama) report it.
	Trained int
	// Tokenizer counts prompts and replies; Scale multiplies its counts,
	// to stand for a tokenizer finer than the one cordon counted with.
	Tokenizer assist.Tokenizer
	Scale     float64
	// IgnoreSchema: the server does not constrain the reply to
	// response_format json_schema (older Ollama), and the model wraps its
	// JSON in a code fence as small models do.
	IgnoreSchema bool
	// Reply is what the model writes for a request's messages.
	Reply func(msgs []assist.Message) string

	mu       sync.Mutex
	requests []Request
	probes   int
}

// Request is what the server saw of one chat request.
type Request struct {
	Model        string
	PromptTokens int  // as the server counted them
	MaxTokens    int  // 0 when none was sent
	Schema       bool // response_format json_schema asked for
	Stream       bool
	Tools        bool
	Status       int
	// Truncated: the prompt was over the context and the server cut it
	// without saying so (Ollama).
	Truncated bool
	Messages  []assist.Message
}

// New starts a server of kind k serving model with a context of ctx
// tokens, counting with OpenAI's o200k_base encoding.
func New(k Kind, model string, ctx int) *Server {
	s := &Server{Kind: k, Model: model, Context: ctx, Slots: 1, Trained: 32768, Scale: 1,
		Tokenizer: assist.EncodingTokenizer("o200k_base")}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the OpenAI-compatible base URL.
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests are the chat requests seen so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) count(text string) int {
	return int(float64(s.Tokenizer.Count(text))*s.Scale + 0.5)
}

// Probes counts the requests for models and settings (not chats).
func (s *Server) Probes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.probes
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		s.mu.Lock()
		s.probes++
		s.mu.Unlock()
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		s.models(w)
	case r.Method == http.MethodGet && r.URL.Path == "/props" && s.Kind == LlamaServer:
		writeJSON(w, http.StatusOK, map[string]any{
			"default_generation_settings": map[string]any{"n_ctx": s.Context / max(s.Slots, 1), "model": s.Model},
			"total_slots":                 s.Slots, "model_path": "/models/" + s.Model + ".gguf", "n_ctx": s.Context,
		})
	case r.Method == http.MethodGet && r.URL.Path == "/api/version" && s.Kind == Ollama:
		writeJSON(w, http.StatusOK, map[string]string{"version": "0.6.8"})
	case r.Method == http.MethodPost && r.URL.Path == "/api/show" && s.Kind == Ollama:
		var req struct {
			Model string `json:"model"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		if !s.serves(req.Model) {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": fmt.Sprintf("model '%s' not found", req.Model)})
			return
		}
		params := "stop \"<|im_end|>\""
		if s.NumCtxSet {
			params = fmt.Sprintf("num_ctx %d\n%s", s.Context, params)
		}
		writeJSON(w, http.StatusOK, map[string]any{"parameters": params, "model_info": map[string]any{"qwen2.context_length": s.Trained}})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		s.chat(w, r)
	default:
		s.notFound(w, r)
	}
}

func (s *Server) models(w http.ResponseWriter) {
	m := map[string]any{"id": s.Model, "object": "model", "created": 1735689600}
	switch s.Kind {
	case LlamaServer:
		m["owned_by"] = "llamacpp"
		m["meta"] = map[string]any{"n_ctx_train": s.Trained, "n_vocab": 151936}
	case Ollama:
		m["owned_by"] = "library"
	case VLLM:
		m["owned_by"], m["root"], m["max_model_len"] = "vllm", s.Model, s.Context
	case OpenAI:
		m["owned_by"] = "system"
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{m}})
}

// notFound is each server's 404 for a path it does not serve.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	switch s.Kind {
	case LlamaServer:
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "File Not Found", "type": "not_found_error"}})
	case VLLM:
		writeJSON(w, http.StatusNotFound, map[string]string{"detail": "Not Found"})
	default:
		http.Error(w, "404 page not found", http.StatusNotFound)
	}
}

func (s *Server) serves(model string) bool {
	return model == s.Model || s.Kind == Ollama && model+":latest" == s.Model
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// chatRequest is the part of a chat request the servers read.
type chatRequest struct {
	Model          string           `json:"model"`
	Messages       []assist.Message `json:"messages"`
	MaxTokens      int              `json:"max_tokens"`
	MaxCompletion  int              `json:"max_completion_tokens"`
	Stream         bool             `json:"stream"`
	Tools          []any            `json:"tools"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": map[string]any{"message": err.Error(), "type": "invalid_request_error"}})
		return
	}
	rec := Request{Model: req.Model, MaxTokens: max(req.MaxTokens, req.MaxCompletion), Stream: req.Stream, Tools: len(req.Tools) > 0,
		Schema: req.ResponseFormat != nil && req.ResponseFormat.Type == "json_schema", Messages: req.Messages}
	// The chat template's markers: <|im_start|>role\n … <|im_end|>\n and
	// the reply's <|im_start|>assistant\n.
	rec.PromptTokens = 3
	for _, m := range req.Messages {
		rec.PromptTokens += 5 + s.count(m.Content)
	}
	if status, body := s.refuse(req, rec); status != 0 {
		rec.Status = status
		s.record(rec)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
		return
	}
	if s.Kind == Ollama && rec.PromptTokens > s.Context {
		// Ollama keeps the prompt's end and says nothing.
		rec.Truncated = true
	}
	reply := ""
	if s.Reply != nil {
		reply = s.Reply(req.Messages)
	}
	if s.IgnoreSchema || !rec.Schema {
		reply = "```json\n" + reply + "\n```"
	}
	text, finish := s.generate(reply, rec)
	rec.Status = http.StatusOK
	s.record(rec)
	if req.Stream {
		s.stream(w, req.Model, text, finish)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(), "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": rec.PromptTokens, "completion_tokens": s.count(text), "total_tokens": rec.PromptTokens + s.count(text)},
	})
}

// refuse returns the status and the exact body the real server sends for
// an unknown model or a prompt over its context, or 0.
func (s *Server) refuse(req chatRequest, rec Request) (int, string) {
	if !s.serves(req.Model) {
		switch s.Kind {
		case Ollama:
			return 404, fmt.Sprintf(`{"error":{"message":"model \"%s\" not found, try pulling it first","type":"api_error","param":null,"code":null}}`, req.Model)
		case VLLM:
			return 404, fmt.Sprintf(`{"object":"error","message":"The model `+"`%s`"+` does not exist.","type":"NotFoundError","param":null,"code":404}`, req.Model)
		case OpenAI:
			return 404, fmt.Sprintf(`{"error":{"message":"The model `+"`%s`"+` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, req.Model)
		}
		// llama-server serves its one model whatever the request names
	}
	perSlot := s.Context / max(s.Slots, 1)
	switch s.Kind {
	case LlamaServer:
		if rec.PromptTokens >= perSlot {
			return 400, fmt.Sprintf(`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":%d,"n_ctx":%d}}`, rec.PromptTokens, perSlot)
		}
	case VLLM:
		if rec.PromptTokens+rec.MaxTokens > s.Context {
			return 400, fmt.Sprintf(`{"object":"error","message":"This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`,
				s.Context, rec.PromptTokens+rec.MaxTokens, rec.PromptTokens, rec.MaxTokens)
		}
	case OpenAI:
		if rec.PromptTokens > s.Context {
			return 400, fmt.Sprintf(`{"error":{"message":"This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, s.Context, rec.PromptTokens)
		}
	}
	return 0, ""
}

// generate stops the reply where the real server would: at max_tokens,
// or where the context is full when none was sent (llama-server's
// default), mid-JSON or not.
func (s *Server) generate(reply string, rec Request) (string, string) {
	limit := rec.MaxTokens
	room := s.Context/max(s.Slots, 1) - rec.PromptTokens
	if limit <= 0 || limit > room {
		limit = max(room, 0)
	}
	if s.count(reply) <= limit {
		return reply, "stop"
	}
	// the longest prefix within limit tokens, found by halving
	lo, hi := 0, len(reply)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if s.count(reply[:mid]) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return strings.ToValidUTF8(reply[:lo], ""), "length"
}

// stream sends text as the servers do: chunks of a few words as
// chat.completion.chunk events, the finish reason in the last, then
// [DONE].
func (s *Server) stream(w http.ResponseWriter, model, text, finish string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	fl, _ := w.(http.Flusher)
	send := func(delta map[string]any, fin any) {
		chunk := map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": time.Now().Unix(), "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}}
		data, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", data)
		if fl != nil {
			fl.Flush()
		}
	}
	if s.Kind == VLLM || s.Kind == OpenAI {
		send(map[string]any{"role": "assistant", "content": ""}, nil)
	}
	for len(text) > 0 {
		n := min(len(text), 24)
		for n < len(text) && text[n]&0xc0 == 0x80 {
			n++
		}
		send(map[string]any{"content": text[:n]}, nil)
		text = text[n:]
	}
	send(map[string]any{}, finish)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}
