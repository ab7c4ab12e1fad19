package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
)

// assistCheck probes the assistant's endpoint afresh, keeps the probe in
// the workspace, and says what a request would get: the server's kind,
// whether it serves the model, the context and reply limits, how tokens
// are counted and how much evidence fits.
func assistCheck(ctx context.Context, e *env, dir string, shared, asJSON bool) error {
	ws, err := incident.Open(dir, incident.AllowShared(shared))
	if err != nil {
		return err
	}
	defer ws.Close()
	c, err := ws.Config()
	if err != nil {
		return err
	}
	cfg, err := c.AssistantConfig(os.Getenv)
	if err != nil {
		return err
	}
	if cfg.Offline {
		return fmt.Errorf("%w: no endpoint configured: set %s and %s, or assistant.base_url in cordon.yaml (docs/assistant.md)", assist.ErrConfig, assist.EnvBaseURL, assist.EnvModel)
	}
	p, err := ws.AssistantProbe(ctx, cfg, true)
	if err != nil {
		return err
	}
	cfg = p.Apply(cfg)
	if asJSON {
		enc := jsonEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(p); err != nil {
			return err
		}
	} else {
		writeCheck(e, cfg, p)
	}
	switch {
	case p.Err != "" && len(p.Models) == 0:
		return fmt.Errorf("%w: cannot list the models of host %s: %s", assist.ErrEndpoint, cfg.Host(), p.Err)
	case !p.ModelFound:
		return fmt.Errorf("%w: model %q is not served at host %s: check %s", assist.ErrModelNotFound, cfg.Model, cfg.Host(), assist.EnvModel)
	}
	return nil
}

func writeCheck(e *env, cfg assist.Config, p assist.Probe) {
	w := e.stdout
	kind := p.Endpoint
	switch {
	case cfg.Endpoint != "" && cfg.Endpoint != p.Endpoint && p.Endpoint != "":
		kind = cfg.Endpoint + " (configured; the probe found " + p.Endpoint + ")"
	case cfg.Endpoint != "" && p.Endpoint == "":
		kind = cfg.Endpoint + " (configured)"
	case kind == "":
		kind = "an OpenAI-compatible server of no known kind"
	}
	fmt.Fprintf(w, "endpoint:  %s at %s\n", kind, cfg.Host())
	found := "NOT among them"
	if p.ModelFound {
		found = "found"
	}
	if len(p.Models) > 0 {
		fmt.Fprintf(w, "models:    %s (%q: %s)\n", strings.Join(p.Models, ", "), cfg.Model, found)
	} else {
		fmt.Fprintf(w, "models:    none listed (%s)\n", orNone(p.Err))
	}
	from := "cordon's default for a model it does not know"
	switch {
	case p.ContextTokens > 0 && cfg.ContextTokens != p.ContextTokens:
		from = fmt.Sprintf("configured; the server says %d (%s)", p.ContextTokens, p.ContextFrom)
	case p.ContextTokens > 0:
		from = "the server's " + p.ContextFrom
	case cfg.ContextTokens > 0:
		from = "configured"
	}
	fmt.Fprintf(w, "context:   %d tokens (%s)\n", cfg.Context(), from)
	fmt.Fprintf(w, "reply:     up to %d tokens (max_tokens, sent with every request)\n", cfg.ReplyTokens())
	tok := cfg.Tokenizer()
	if tok.Exact() {
		fmt.Fprintf(w, "tokens:    counted with %s, the model's own encoding\n", tok.Name())
	} else {
		fmt.Fprintf(w, "tokens:    estimated (at least what Qwen, Gemma and Llama 3 count, at most 1.25 times it on the samples)\n")
	}
	fmt.Fprintf(w, "evidence:  up to %d tokens for summarize\n", cfg.EvidenceBudget(assist.TaskSummarize, "", 0))
	if pr, ok := assist.PresetNamed(cfg.Endpoint); ok {
		overflow := "refused with an error: cordon drops the least relevant events and sends once more"
		if pr.Truncates {
			overflow = "cut silently by the server: cordon fits the packet to the context before sending"
		}
		fmt.Fprintf(w, "overflow:  %s\n", overflow)
	}
	fmt.Fprintf(w, "timeout:   %s for a full prompt\n", cfg.AttemptTimeout(cfg.PromptLimit()))
	for _, n := range p.Notes {
		fmt.Fprintf(w, "note:      %s\n", n)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
