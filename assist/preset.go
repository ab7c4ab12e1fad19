package assist

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Preset is what cordon knows of one kind of OpenAI-compatible server:
// where it listens by default, whether it honours response_format
// json_schema, and how it says that a prompt was over its context.
type Preset struct {
	// Name is how cordon.yaml's assistant.endpoint names it.
	Name string
	// BaseURL is where the server listens when started with its defaults.
	BaseURL string
	// JSONSchema: the server constrains the reply to the schema; one that
	// ignores it is still asked for JSON by the prompt.
	JSONSchema bool
	// Truncates: an over-long prompt is cut silently instead of refused
	// (Ollama keeps its end, and with it loses the system prompt), so the
	// packet must fit its context before it is sent.
	Truncates bool
	// DefaultContext is the context the server gives a model unless told
	// otherwise, or 0 when it is the model's own.
	DefaultContext int
}

// The presets.
var presets = []Preset{
	{Name: "llama-server", BaseURL: "http://127.0.0.1:8080/v1", JSONSchema: true},
	{Name: "ollama", BaseURL: "http://127.0.0.1:11434/v1", JSONSchema: true, Truncates: true, DefaultContext: 4096},
	{Name: "vllm", BaseURL: "http://127.0.0.1:8000/v1", JSONSchema: true},
	{Name: "openai", BaseURL: DefaultBaseURL, JSONSchema: true},
}

// Presets lists the presets.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// PresetNamed returns the preset called name.
func PresetNamed(name string) (Preset, bool) {
	for _, p := range presets {
		if p.Name == strings.ToLower(strings.TrimSpace(name)) {
			return p, true
		}
	}
	return Preset{}, false
}

func presetNames() string {
	var names []string
	for _, p := range presets {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// presetFor guesses the server's kind from its URL when neither the
// configuration nor a probe says: its default port, or OpenAI's host.
func presetFor(base string) (Preset, bool) {
	u, err := url.Parse(base)
	if err != nil {
		return Preset{}, false
	}
	if u.Hostname() == "api.openai.com" {
		return PresetNamed("openai")
	}
	for _, p := range presets {
		pu, _ := url.Parse(p.BaseURL)
		if pu.Port() != "" && u.Port() == pu.Port() {
			return p, true
		}
	}
	return Preset{}, false
}

// The words each server uses for a prompt over its context, and the
// numbers they give with them. llama-server:
// {"error":{"code":400,"message":"the request exceeds the available
// context size, try increasing it","type":"exceed_context_size_error",
// "n_prompt_tokens":9000,"n_ctx":8192}}; vLLM: "This model's maximum
// context length is 4096 tokens. However, you requested 5000 tokens
// (4000 in the messages, 1000 in the completion)."; OpenAI: the same
// words with "code":"context_length_exceeded".
var (
	overflowWords = regexp.MustCompile(`(?i)exceed_context_size_error|context_length_exceeded|exceeds the available context size|maximum context length|context window|too many tokens|prompt is too long|input is too long`)
	overflowNCtx  = regexp.MustCompile(`"n_ctx"\s*:\s*(\d+)|maximum context length is (\d+)`)
)

// contextOverflow reports whether an error body says the prompt was over
// the model's context, and the context size it gives, if any.
func contextOverflow(status int, body string) (bool, int) {
	if status != 400 && status != 413 && status != 422 && status != 500 {
		return false, 0
	}
	if !overflowWords.MatchString(body) {
		return false, 0
	}
	if m := overflowNCtx.FindStringSubmatch(body); m != nil {
		v := m[1]
		if v == "" {
			v = m[2]
		}
		n, _ := strconv.Atoi(v)
		return true, n
	}
	return true, 0
}
