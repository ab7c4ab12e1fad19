package incident

import (
	"context"
	"errors"
	"fmt"
	"github.com/cordon-ir/cordon/capability"
	"slices"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
)

// AssistantConfig is the assistant's endpoint for this workspace: the
// defaults, then cordon.yaml's assistant section, then the environment
// (read through getenv). The API key comes from the environment only, and
// is sent only to an endpoint the environment names (or OpenAI's): never
// to one a workspace's cordon.yaml names.
func (c *Config) AssistantConfig(getenv func(string) string) (assist.Config, error) {
	a := assist.DefaultConfig()
	f := c.Assistant
	a.BaseURL, a.Model = f.BaseURL, f.Model
	if f.JSONSchema != nil {
		a.JSONSchema = *f.JSONSchema
	}
	if f.Timeout != "" {
		a.Timeout, _ = time.ParseDuration(f.Timeout) // checked by Validate
	}
	if f.TimeoutPer1K != "" {
		if a.TimeoutPer1K, _ = time.ParseDuration(f.TimeoutPer1K); a.TimeoutPer1K == 0 {
			a.TimeoutPer1K = -1 // "0s": no scaling
		}
	}
	a.ContextTokens, a.MaxTokens, a.Endpoint = f.ContextTokens, f.MaxTokens, f.Endpoint
	var err error
	if a.ContextTokens, err = assist.EnvInt(getenv, assist.EnvContextTokens, a.ContextTokens); err != nil {
		return a, err
	}
	if a.MaxTokens, err = assist.EnvInt(getenv, assist.EnvMaxTokens, a.MaxTokens); err != nil {
		return a, err
	}
	a.MaxReplyBytes = f.MaxReplyBytes
	if a.MaxReplyBytes, err = assist.EnvInt(getenv, assist.EnvMaxReplyBytes, a.MaxReplyBytes); err != nil {
		return a, err
	}
	if v := strings.TrimSpace(getenv(assist.EnvBaseURL)); v != "" {
		a.BaseURL = v
	}
	if v := strings.TrimSpace(getenv(assist.EnvModel)); v != "" {
		a.Model = v
	}
	a.APIKey = strings.TrimSpace(getenv(assist.EnvAPIKey))
	// The key is the responder's; the workspace (and its cordon.yaml) may
	// have come from anyone. A key goes only to an endpoint the
	// environment names, or to the default one.
	if a.APIKey != "" && a.BaseURL != "" && strings.TrimSpace(getenv(assist.EnvBaseURL)) == "" && a.BaseURL != assist.DefaultBaseURL {
		a.APIKey = ""
	}
	if a.BaseURL == "" && a.APIKey != "" {
		a.BaseURL = assist.DefaultBaseURL
	}
	if a.Model == "" && a.BaseURL == assist.DefaultBaseURL {
		a.Model = assist.DefaultModel
	}
	a.Offline = a.BaseURL == ""
	return a, a.Validate()
}

// Budget is the evidence packet's size from cordon.yaml, for a packet no
// model reads; PacketBudget is the one a model gets.
func (c *Config) Budget() assist.Budget {
	return assist.Budget{Tokens: c.Assistant.BudgetTokens}
}

// PacketBudget is the budget of the packet task sends to cfg's model: what
// its context leaves after the reply and the prompt, within cordon.yaml's
// budget_tokens when set. Offline, it is Budget.
func (c *Config) PacketBudget(cfg assist.Config, task assist.Task, question string) assist.Budget {
	if cfg.Offline {
		return c.Budget()
	}
	return cfg.PacketBudget(task, question, c.Assistant.BudgetTokens)
}

// AskRequest is one question to the assistant.
type AskRequest struct {
	Task     assist.Task
	Question string // the free-form question of TaskAsk, or extra context
	// Selection is the evidence: a query, event ids, a time range, the
	// findings in question. An empty selection is the whole incident, and
	// Ask adds every finding to it.
	Selection assist.Selection
	// OnChunk receives the streamed answer as it arrives (nil: no stream).
	OnChunk func(string)
}

// ExchangePayload is what the journal keeps of an exchange: the payload of
// a journal.EntryAssistantExchange entry.
type ExchangePayload struct {
	assist.Result
	Question string `json:"question,omitempty"`
	Error    string `json:"error,omitempty"`
}

// refusalPayload is what the journal keeps of a refused request.
type refusalPayload struct {
	Task     assist.Task `json:"task"`
	Question string      `json:"question"`
	Reason   string      `json:"reason"`
}

// Ask runs an assistant task over the workspace's evidence and journals the
// exchange: task, model, endpoint host, the event ids sent, redaction count,
// prompt digest, the answer and its verification, and who asked. A request
// outside the defender scope is refused before anything is sent, and the
// refusal is journaled. Observers cannot ask.
func (w *Workspace) Ask(ctx context.Context, actor journal.Actor, cfg assist.Config, req AskRequest, opts ...assist.Option) (assist.Result, error) {
	if actor.Observer {
		return assist.Result{}, journal.ErrReadOnly
	}
	// Every exchange is on record: a workspace that cannot take the entry
	// (read-only, shared) refuses before anything leaves the machine.
	if err := w.journal.Writable(); err != nil {
		return assist.Result{}, err
	}
	if err := assist.Gate(req.Task, req.Question); err != nil {
		p := refusalPayload{Task: req.Task, Question: req.Question, Reason: err.Error()}
		if _, jerr := w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntryAssistantRefusal, Text: req.Question}, p); jerr != nil {
			return assist.Result{}, errors.Join(err, jerr)
		}
		return assist.Result{}, err
	}
	cfg = w.probedConfig(ctx, cfg, opts...)
	packet, err := w.AskPacket(ctx, cfg, req)
	if err != nil {
		return assist.Result{}, err
	}
	client, err := assist.NewClient(cfg, opts...)
	if err != nil {
		return assist.Result{}, err
	}
	var res assist.Result
	if req.OnChunk != nil {
		res, err = client.Stream(ctx, req.Task, req.Question, packet, req.OnChunk)
	} else {
		res, err = client.Run(ctx, req.Task, req.Question, packet)
	}
	if err == nil && res.Suggestion != nil && res.Suggestion.Runnable() {
		// The preview's count: the query is not run for the responder
		// until they accept it, but how much it finds is part of what
		// they decide on.
		if q, perr := res.Suggestion.Parsed(); perr == nil {
			if hits, serr := w.store.Search(ctx, evidence.Request{Query: q, Limit: 1}); serr == nil {
				res.Suggestion.Hits = int(hits.Total)
			}
		}
	}
	p := ExchangePayload{Result: res, Question: req.Question}
	if res.Task == "" {
		p.Task, p.Model, p.Endpoint, p.EventIDs = req.Task, cfg.Model, cfg.Host(), packet.EventIDs()
		p.Sent, p.Total, p.Redactions = packet.Sent, packet.Total, packet.Redactions
	}
	text := fmt.Sprintf("%s: %s", req.Task, exchangeLine(res))
	if sg := res.Suggestion; sg != nil {
		text = fmt.Sprintf("%s: %s", req.Task, suggestionLine(*sg, res))
	}
	if err != nil {
		p.Error = err.Error()
		text = fmt.Sprintf("%s: failed: %v", req.Task, err)
	}
	// Journal even when the caller's context ended (a cancelled stream):
	// what was sent has left the machine and must be on record.
	jctx := context.WithoutCancel(ctx)
	if _, jerr := w.appendJSON(jctx, journal.Entry{Actor: actor, Type: journal.EntryAssistantExchange, Text: text}, p); jerr != nil {
		return res, errors.Join(err, jerr)
	}
	return res, err
}

// AskPacket builds the evidence packet Ask sends for req to cfg's model,
// so that a caller can say what will leave the machine (how many events,
// how many tokens of the model's context, how many redactions) before
// asking. An empty selection is the whole incident with every finding.
func (w *Workspace) AskPacket(ctx context.Context, cfg assist.Config, req AskRequest) (assist.Packet, error) {
	sel := req.Selection
	cfg = w.probedConfig(ctx, cfg)
	c, err := w.Config()
	if err != nil {
		return assist.Packet{}, err
	}
	if sel.Query.IsAll() && len(sel.IDs) == 0 && sel.Findings == nil {
		// The whole incident (or a time range of it), its findings' events
		// first when over budget: marked Whole, or adding the findings
		// would narrow it to their events.
		sel.Whole = sel.Since.IsZero() && sel.Until.IsZero()
		if sel.Findings, err = w.CachedFindings(ctx); err != nil {
			return assist.Packet{}, err
		}
	}
	if sel.Capabilities == nil {
		if sel.Capabilities, err = w.packetCapabilities(ctx, sel.Findings); err != nil {
			return assist.Packet{}, err
		}
	}
	if sel.Assessment == nil {
		// the verdicts the model is told, never asked to make
		a, err := w.Assessment(ctx)
		if err != nil {
			return assist.Packet{}, err
		}
		sel.Assessment = &a
	}
	p, err := assist.BuildPacket(ctx, w.store, sel, c.PacketBudget(cfg, req.Task, req.Question))
	if err != nil || cfg.Offline {
		return p, err
	}
	return cfg.Fit(req.Task, req.Question, p), nil
}

// suggestionLine sums a query suggestion up for the journal's one line.
func suggestionLine(s assist.Suggestion, r assist.Result) string {
	if !s.Runnable() {
		return fmt.Sprintf("no runnable query from %s at %s (%s); sent %d of %d events", r.Model, r.Endpoint, s.Err, r.Sent, r.Total)
	}
	return fmt.Sprintf("suggested %q (%d hits, not run) from %s at %s; sent %d of %d events", s.Query, s.Hits, r.Model, r.Endpoint, r.Sent, r.Total)
}

// exchangeLine sums an exchange up for the journal's one line.
func exchangeLine(r assist.Result) string {
	src := r.Model + " at " + r.Endpoint
	if r.Offline {
		src = "offline"
	}
	unsupported := ""
	if n := r.Answer.Unsupported(); n > 0 {
		unsupported = fmt.Sprintf(", %d not supported by their events", n)
	}
	if r.Answer.Truncated {
		unsupported += ", the reply cut off"
	}
	return fmt.Sprintf("%d claims (%d unverified%s) from %s; sent %d of %d events, %d redactions",
		len(r.Answer.Claims), r.Answer.Uncited(), unsupported, src, r.Sent, r.Total, r.Redactions)
}

// packetCapabilities are the capability sets of the case's subject and of
// the agents the selection's findings name: what the model must see to say
// what is still live.
func (w *Workspace) packetCapabilities(ctx context.Context, findings []detect.Finding) ([]capability.Capability, error) {
	caps, err := w.Capabilities(ctx)
	if err != nil {
		return nil, err
	}
	var agents []string
	if s, err := w.State(); err == nil {
		agents = append(agents, s.Subject...)
	}
	for _, f := range findings {
		if f.Agent != "" && !slices.Contains(agents, f.Agent) {
			agents = append(agents, f.Agent)
		}
	}
	out := []capability.Capability{}
	for _, a := range agents {
		out = append(out, caps.For(a)...)
	}
	return out, nil
}
