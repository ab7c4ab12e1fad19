package assist

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Environment variables ConfigFromEnv reads. The API key comes from the
// environment only and is never written or logged.
const (
	EnvBaseURL = "CORDON_LLM_BASE_URL"
	EnvModel   = "CORDON_LLM_MODEL"
	EnvAPIKey  = "OPENAI_API_KEY"
	// EnvContextTokens is the model's context size in tokens and
	// EnvMaxTokens the reply's limit; the packet's budget is what is left.
	EnvContextTokens = "CORDON_LLM_CONTEXT_TOKENS"
	EnvMaxTokens     = "CORDON_LLM_MAX_TOKENS"
	// EnvMaxReplyBytes caps the bytes read of one reply.
	EnvMaxReplyBytes = "CORDON_LLM_MAX_REPLY_BYTES"
)

// DefaultMaxReplyBytes is the most of one reply cordon reads, streamed or
// not: far past what DefaultMaxTokens of text takes (a token is a few
// bytes, a streamed chunk some hundred bytes of framing), far below what
// would hurt the machine. An endpoint that sends more is broken or
// hostile; the exchange fails there, on the record.
const DefaultMaxReplyBytes = 4 << 20

// Defaults of the model's limits. An unknown model is taken to have an 8k
// context, which every current local model has at least and which fits a
// CPU-only machine's memory; the reply's limit leaves room for twenty or
// so claims.
const (
	DefaultContextTokens = 8192
	DefaultMaxTokens     = 1024
)

// DefaultTimeout is the fixed part of one attempt's time, and
// DefaultTimeoutPer1K the part per thousand tokens of prompt and reply: a
// 0.5B model on one CPU thread was measured reading a 10k-token packet in
// 113-143 s, and larger models on CPU are slower still.
const (
	DefaultTimeout      = 2 * time.Minute
	DefaultTimeoutPer1K = 20 * time.Second
)

// DefaultBaseURL is used when a key is set but no endpoint is.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultModel is used with DefaultBaseURL when no model is set; other
// endpoints must name theirs.
const DefaultModel = "gpt-4o-mini"

// ErrConfig: the assistant's configuration cannot work.
var ErrConfig = errors.New("assistant configuration")

// Config is how the assistant reaches a model. Its String and LogValue
// never show the API key.
type Config struct {
	BaseURL string        // OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1
	Model   string        // model name at that endpoint
	APIKey  string        // from OPENAI_API_KEY only
	Timeout time.Duration // per attempt, fixed part; 0 means DefaultTimeout
	// TimeoutPer1K is added to Timeout per thousand tokens of the prompt
	// and the reply's limit (AttemptTimeout); 0 means DefaultTimeoutPer1K,
	// negative means none.
	TimeoutPer1K time.Duration
	MaxRetries   int  // retries on 429 and 5xx; negative means none
	Offline      bool // no endpoint: only the offline tasks work
	// MaxTokens is the reply's limit, always sent: a small model left
	// unbounded can generate until the context is full. 0 means
	// DefaultMaxTokens.
	MaxTokens int
	// ContextTokens is the model's context size: what the prompt and the
	// reply share. 0 means what the endpoint's probe found, else the
	// model's known size, else DefaultContextTokens.
	ContextTokens int
	// Endpoint names the server's kind (a preset: llama-server, ollama,
	// vllm, openai); "" is found by the probe or from the URL.
	Endpoint string
	// JSONSchema asks for response_format json_schema; an endpoint that
	// rejects it with a 400 is asked once more without it.
	JSONSchema bool
	// MaxReplyBytes caps the bytes read of one reply; 0 means
	// DefaultMaxReplyBytes.
	MaxReplyBytes int
}

// ReplyCap is the reply's byte cap in force.
func (c Config) ReplyCap() int {
	if c.MaxReplyBytes > 0 {
		return c.MaxReplyBytes
	}
	return DefaultMaxReplyBytes
}

// DefaultConfig has no endpoint: offline until one is configured.
func DefaultConfig() Config {
	return Config{Timeout: DefaultTimeout, MaxRetries: 3, JSONSchema: true, Offline: true}
}

// ConfigFromEnv returns DefaultConfig overlaid with the environment read
// through getenv (os.Getenv in the binary, a map in tests). An endpoint
// or a key turns offline mode off.
func ConfigFromEnv(getenv func(string) string) Config {
	c := DefaultConfig()
	c.BaseURL = strings.TrimSpace(getenv(EnvBaseURL))
	c.Model = strings.TrimSpace(getenv(EnvModel))
	c.APIKey = strings.TrimSpace(getenv(EnvAPIKey))
	if c.BaseURL == "" && c.APIKey != "" {
		c.BaseURL = DefaultBaseURL
	}
	if c.Model == "" && c.BaseURL == DefaultBaseURL {
		c.Model = DefaultModel
	}
	c.Offline = c.BaseURL == ""
	c.ContextTokens, _ = envInt(getenv, EnvContextTokens, c.ContextTokens)
	c.MaxTokens, _ = envInt(getenv, EnvMaxTokens, c.MaxTokens)
	c.MaxReplyBytes, _ = envInt(getenv, EnvMaxReplyBytes, c.MaxReplyBytes)
	return c
}

// envInt reads a positive count from the environment, or keeps def when
// the variable is unset; a value that is not a count is an error naming
// the variable.
func envInt(getenv func(string) string, name string, def int) (int, error) {
	v := strings.TrimSpace(getenv(name))
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return def, fmt.Errorf("%w: %s=%q is not a positive number", ErrConfig, name, v)
	}
	return n, nil
}

// EnvInt is envInt for the workspace's configuration, which layers the
// environment over cordon.yaml.
func EnvInt(getenv func(string) string, name string, def int) (int, error) {
	return envInt(getenv, name, def)
}

// Validate says what is wrong with c, naming the variable to set.
func (c Config) Validate() error {
	if c.Offline {
		return nil
	}
	if c.BaseURL == "" {
		return fmt.Errorf("%w: no endpoint: set %s (or %s for %s)", ErrConfig, EnvBaseURL, EnvAPIKey, DefaultBaseURL)
	}
	u, err := url.Parse(c.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: %s is not an http(s) URL", ErrConfig, EnvBaseURL)
	}
	if c.Model == "" {
		return fmt.Errorf("%w: no model for %s: set %s", ErrConfig, c.Host(), EnvModel)
	}
	if c.Timeout < 0 || c.MaxTokens < 0 || c.ContextTokens < 0 {
		return fmt.Errorf("%w: timeout and token counts cannot be negative", ErrConfig)
	}
	if c.ContextTokens > 0 && c.ReplyTokens() >= c.ContextTokens/2 {
		return fmt.Errorf("%w: max tokens %d leaves too little of a %d-token context for the evidence: lower %s or raise %s",
			ErrConfig, c.ReplyTokens(), c.ContextTokens, EnvMaxTokens, EnvContextTokens)
	}
	if c.Endpoint != "" {
		if _, ok := PresetNamed(c.Endpoint); !ok {
			return fmt.Errorf("%w: unknown endpoint %q: want one of %s", ErrConfig, c.Endpoint, presetNames())
		}
	}
	return nil
}

// Host is the endpoint's host (and port), without scheme, credentials or
// path: what results and the journal record.
func (c Config) Host() string {
	u, err := url.Parse(c.BaseURL)
	if err != nil {
		return "(invalid endpoint)"
	}
	return u.Host
}

// String describes c without its key.
func (c Config) String() string {
	if c.Offline {
		return "assistant: offline"
	}
	key := "no key"
	if c.APIKey != "" {
		key = "key set"
	}
	return "assistant: model " + strconv.Quote(c.Model) + " at " + c.Host() + " (" + key + ")"
}

// GoString keeps %#v from printing the key.
func (c Config) GoString() string { return c.String() }

// LogValue keeps slog from printing the key.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(slog.String("host", c.Host()), slog.String("model", c.Model),
		slog.Bool("offline", c.Offline), slog.Bool("key_set", c.APIKey != ""))
}
