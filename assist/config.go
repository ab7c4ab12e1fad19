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
	BaseURL    string        // OpenAI-compatible base URL, e.g. http://127.0.0.1:8080/v1
	Model      string        // model name at that endpoint
	APIKey     string        // from OPENAI_API_KEY only
	Timeout    time.Duration // per attempt; 0 means 2 minutes
	MaxRetries int           // retries on 429 and 5xx; negative means none
	Offline    bool          // no endpoint: only the offline tasks work
	MaxTokens  int           // reply limit; 0 leaves it to the endpoint
	// JSONSchema asks for response_format json_schema; an endpoint that
	// rejects it with a 400 is asked once more without it.
	JSONSchema bool
}

// DefaultConfig has no endpoint: offline until one is configured.
func DefaultConfig() Config {
	return Config{Timeout: 2 * time.Minute, MaxRetries: 3, JSONSchema: true, Offline: true}
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
	return c
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
	if c.Timeout < 0 || c.MaxTokens < 0 {
		return fmt.Errorf("%w: timeout and max tokens cannot be negative", ErrConfig)
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
