package assist

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Probe is what one look at an endpoint found: the kind of server, the
// models it serves, and the context size it gives the configured model.
// It holds no key and no evidence.
type Probe struct {
	// Key is the endpoint and model probed (ProbeKey): a cached probe of
	// another endpoint or model does not apply.
	Key string `json:"key"`
	// Endpoint is the preset found ("" when the server did not say).
	Endpoint string   `json:"endpoint,omitempty"`
	Models   []string `json:"models,omitempty"`
	// ModelFound: the configured model is among Models.
	ModelFound bool `json:"model_found"`
	// ContextTokens is the context the server gives the model, and
	// ContextFrom where it said so; 0 when it did not.
	ContextTokens int    `json:"context_tokens,omitempty"`
	ContextFrom   string `json:"context_from,omitempty"`
	// Notes are what a responder should know: an Ollama context left at
	// its default, a model not found.
	Notes []string  `json:"notes,omitempty"`
	At    time.Time `json:"at"`
	// Err is why the models could not be listed, when they could not.
	Err string `json:"error,omitempty"`
}

// ProbeKey names what a probe of c is about: its scheme, host, path and
// model, never credentials a URL may carry.
func ProbeKey(c Config) string {
	u, err := neturl.Parse(strings.TrimRight(c.BaseURL, "/"))
	if err != nil {
		return "(invalid endpoint) " + c.Model
	}
	u.User, u.RawQuery, u.Fragment, u.Path = nil, "", "", strings.TrimRight(u.Path, "/")
	return u.String() + " " + c.Model
}

// probeTimeout bounds each request of a probe: it asks for lists, not
// answers, and a server that cannot give them in this time will not
// answer either.
const probeTimeout = 10 * time.Second

// Probe asks the endpoint what it is: its models (/models), and where the
// server has them, its own settings (llama-server's /props, Ollama's
// /api/version and /api/show). It sends no evidence.
func (c *Client) Probe(ctx context.Context) Probe {
	p := Probe{Key: ProbeKey(c.cfg), At: c.now().UTC()}
	base := strings.TrimRight(c.cfg.BaseURL, "/")
	root := strings.TrimSuffix(base, "/v1")
	var models struct {
		Data []struct {
			ID          string `json:"id"`
			OwnedBy     string `json:"owned_by"`
			MaxModelLen int    `json:"max_model_len"`
			Meta        struct {
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := c.getJSON(ctx, http.MethodGet, base+"/models", nil, &models); err != nil {
		p.Err = err.Error()
	}
	owners := map[string]bool{}
	for _, m := range models.Data {
		p.Models = append(p.Models, m.ID)
		owners[m.OwnedBy] = true
		if sameModel(m.ID, c.cfg.Model) {
			p.ModelFound = true
			if m.MaxModelLen > 0 {
				p.ContextTokens, p.ContextFrom = m.MaxModelLen, "/v1/models max_model_len"
			}
		}
	}
	switch {
	case owners["vllm"]:
		p.Endpoint = "vllm"
	case owners["llamacpp"]:
		p.Endpoint = "llama-server"
	case owners["openai"] || owners["system"] || owners["openai-internal"]:
		p.Endpoint = "openai"
	case owners["library"] || owners["ollama"]:
		p.Endpoint = "ollama"
	}
	if p.Endpoint == "" || p.Endpoint == "llama-server" {
		var props struct {
			NCtx     int `json:"n_ctx"`
			Settings struct {
				NCtx int `json:"n_ctx"`
			} `json:"default_generation_settings"`
			TotalSlots int `json:"total_slots"`
		}
		if c.getJSON(ctx, http.MethodGet, root+"/props", nil, &props) == nil && (props.Settings.NCtx > 0 || props.NCtx > 0) {
			p.Endpoint = "llama-server"
			p.ContextTokens, p.ContextFrom = max(props.Settings.NCtx, props.NCtx), "/props n_ctx"
			if props.TotalSlots > 1 {
				// llama-server splits its context between its slots
				p.ContextTokens /= props.TotalSlots
				p.ContextFrom += fmt.Sprintf(" / %d slots", props.TotalSlots)
			}
		}
	}
	if p.Endpoint == "" || p.Endpoint == "ollama" {
		var v struct {
			Version string `json:"version"`
		}
		if c.getJSON(ctx, http.MethodGet, root+"/api/version", nil, &v) == nil && v.Version != "" {
			p.Endpoint = "ollama"
			c.probeOllama(ctx, root, &p)
		}
	}
	if p.Endpoint == "" {
		if pr, ok := presetFor(base); ok {
			p.Endpoint = pr.Name
		}
	}
	if len(p.Models) > 0 && !p.ModelFound {
		p.Notes = append(p.Notes, fmt.Sprintf("model %q is not among the %d the endpoint lists", c.cfg.Model, len(p.Models)))
	}
	return p
}

// numCtx is the num_ctx line of Ollama's parameters.
var numCtx = regexp.MustCompile(`(?m)^num_ctx\s+(\d+)`)

// probeOllama reads the context Ollama gives the model: num_ctx from its
// Modelfile when set, else Ollama's default, which is far below what most
// models were trained for, and past which Ollama cuts the prompt without
// saying so.
func (c *Client) probeOllama(ctx context.Context, root string, p *Probe) {
	var show struct {
		Parameters string         `json:"parameters"`
		ModelInfo  map[string]any `json:"model_info"`
	}
	body, _ := json.Marshal(map[string]string{"model": c.cfg.Model})
	if c.getJSON(ctx, http.MethodPost, root+"/api/show", body, &show) != nil {
		return
	}
	trained := 0
	for k, v := range show.ModelInfo {
		if f, ok := v.(float64); ok && strings.HasSuffix(k, ".context_length") {
			trained = int(f)
		}
	}
	if m := numCtx.FindStringSubmatch(show.Parameters); m != nil {
		p.ContextTokens, _ = strconv.Atoi(m[1])
		p.ContextFrom = "/api/show num_ctx"
		return
	}
	pr, _ := PresetNamed("ollama")
	p.ContextTokens, p.ContextFrom = pr.DefaultContext, "Ollama's default num_ctx"
	if trained > pr.DefaultContext {
		p.Notes = append(p.Notes, fmt.Sprintf("the model was trained for %d tokens but Ollama gives it %d unless told otherwise: start Ollama with OLLAMA_CONTEXT_LENGTH=%d and set assistant.context_tokens to match",
			trained, pr.DefaultContext, min(trained, 16384)))
	}
}

// Apply fills what c leaves open from the probe: the server's kind and
// the context it gives the model. What c sets itself stays.
func (p Probe) Apply(c Config) Config {
	if p.Key != ProbeKey(c) {
		return c
	}
	if c.Endpoint == "" {
		c.Endpoint = p.Endpoint
	}
	if c.ContextTokens == 0 && p.ContextTokens > 0 {
		c.ContextTokens = p.ContextTokens
	}
	return c
}

// sameModel: Ollama lists "qwen2.5:0.5b" and "llama3:latest" for the
// "llama3" a responder types.
func sameModel(listed, configured string) bool {
	return listed == configured || listed == configured+":latest" || strings.TrimSuffix(listed, ":latest") == configured
}

// getJSON sends one small request of the probe and decodes its reply.
func (c *Client) getJSON(ctx context.Context, method, url string, body []byte, out any) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return err
	}
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var uerr *neturl.Error
		if errors.As(err, &uerr) {
			err = uerr.Err // without the URL, which could carry credentials
		}
		return fmt.Errorf("%s %s: %s", method, pathOf(url), c.safe(err.Error(), 200))
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d", method, pathOf(url), resp.StatusCode)
	}
	return json.Unmarshal(data, out)
}

func pathOf(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[i+3+j:]
		}
	}
	return u
}
