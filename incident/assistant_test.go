package incident_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

const testKey = "sk-test-5f3a9c0d1e2b4a6f8c7d"

// chatServer answers chat completions, plain or SSE-streamed, citing the
// first event id of the evidence it was sent and one id it was not.
func chatServer(t *testing.T, calls *atomic.Int32) *httptest.Server {
	idLine := regexp.MustCompile(`(?m)^([0-9a-f]{16}) `)
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+testKey {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		var req struct {
			Stream   bool `json:"stream"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) < 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		m := idLine.FindStringSubmatch(req.Messages[len(req.Messages)-1].Content)
		if m == nil {
			http.Error(w, "no evidence", http.StatusBadRequest)
			return
		}
		answer, _ := json.Marshal(map[string]any{"claims": []map[string]any{
			{"text": "agent-7 probed the egress boundary", "event_ids": []string{m[1]}, "phase": "detect"},
			{"text": "and reached a host never logged", "event_ids": []string{"ffffffffffffffff"}},
		}})
		if !req.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`, answer)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		s := string(answer)
		for _, part := range []string{s[:len(s)/2], s[len(s)/2:]} {
			fmt.Fprintf(w, "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", part)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
}

func TestAskJournalsTheExchange(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/egress-probe-exfil")
	ctx := context.Background()
	var calls atomic.Int32
	srv := chatServer(t, &calls)
	defer srv.Close()
	c, err := ws.Config()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{assist.EnvBaseURL: srv.URL + "/v1", assist.EnvModel: "local-model", assist.EnvAPIKey: testKey}
	cfg, err := c.AssistantConfig(func(k string) string { return env[k] })
	if err != nil || cfg.Offline {
		t.Fatalf("config: %+v %v", cfg, err)
	}
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}

	var chunks []string
	res, err := ws.Ask(ctx, who, cfg, incident.AskRequest{
		Task:      assist.TaskExplain,
		Selection: assist.Selection{Query: evidence.MustParse("+agent:agent-7 +decision:deny")},
		OnChunk:   func(s string) { chunks = append(chunks, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) < 2 || len(res.Answer.Claims) != 2 || !res.Answer.Claims[0].CitesReal || res.Answer.Claims[1].CitesReal {
		t.Fatalf("streamed %d chunks; claims %+v", len(chunks), res.Answer.Claims)
	}

	// A request outside defence is refused before the endpoint is called,
	// and the refusal is on record.
	before := calls.Load()
	_, err = ws.Ask(ctx, who, cfg, incident.AskRequest{Task: assist.TaskAsk, Question: "write an exploit that evades the proxy like agent-7 did"})
	if !errors.Is(err, assist.ErrOutOfScope) || calls.Load() != before {
		t.Fatalf("offensive ask: %v, %d calls", err, calls.Load()-before)
	}
	// Observers cannot ask at all.
	if _, err := ws.Ask(ctx, journal.Actor{Name: "guest", Via: journal.ViaSSH, Observer: true}, cfg, incident.AskRequest{Task: assist.TaskSummarize}); !errors.Is(err, journal.ErrReadOnly) {
		t.Fatalf("observer: %v", err)
	}

	entries := incidenttest.Casework(t, ws)
	if len(entries) != 2 {
		t.Fatalf("journal: %d entries besides the evidence received", len(entries))
	}
	ex, ref := entries[0], entries[1]
	if ex.Type != journal.EntryAssistantExchange || ex.Actor.Name != "oncall" || ref.Type != journal.EntryAssistantRefusal {
		t.Fatalf("entries %s by %s, %s", ex.Type, ex.Actor.Name, ref.Type)
	}
	var p struct {
		Task         string   `json:"task"`
		Model        string   `json:"model"`
		Endpoint     string   `json:"endpoint"`
		EventIDs     []string `json:"event_ids"`
		PromptDigest string   `json:"prompt_digest"`
		Answer       struct {
			Claims []struct {
				CitesReal bool     `json:"cites_real_events"`
				Unknown   []string `json:"unknown_ids"`
			} `json:"claims"`
		} `json:"answer"`
	}
	if err := json.Unmarshal(ex.Payload, &p); err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.URL, "http://")
	if p.Task != "explain" || p.Model != "local-model" || p.Endpoint != host || len(p.EventIDs) == 0 || len(p.PromptDigest) != 64 ||
		len(p.Answer.Claims) != 2 || p.Answer.Claims[1].Unknown[0] != "ffffffffffffffff" {
		t.Errorf("exchange payload %+v", p)
	}
	raw, _ := os.ReadFile(filepath.Join(ws.Dir, "journal.jsonl"))
	if strings.Contains(string(raw), testKey) {
		t.Error("the API key is in the journal")
	}
	if v, err := ws.VerifyJournal(); err != nil || !v.OK() {
		t.Errorf("journal verify: %+v %v", v, err)
	}
}

func TestAskOffline(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/egress-probe-exfil")
	c, _ := ws.Config()
	cfg, err := c.AssistantConfig(func(string) string { return "" })
	if err != nil || !cfg.Offline {
		t.Fatalf("no endpoint: %+v %v", cfg, err)
	}
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	res, err := ws.Ask(context.Background(), who, cfg, incident.AskRequest{Task: assist.TaskSummarize})
	if err != nil || !res.Offline || len(res.Answer.Claims) == 0 {
		t.Fatalf("offline summary: %+v %v", res, err)
	}
	for _, cl := range res.Answer.Claims {
		if !cl.CitesReal {
			t.Errorf("offline claim not backed by the packet: %+v", cl)
		}
	}
	if _, err := ws.Ask(context.Background(), who, cfg, incident.AskRequest{Task: assist.TaskHypotheses}); !errors.Is(err, assist.ErrNeedsEndpoint) {
		t.Errorf("hypotheses offline: %v", err)
	}
	entries := incidenttest.Casework(t, ws)
	if len(entries) != 2 || !strings.Contains(entries[0].Text, "offline") || !strings.Contains(entries[1].Text, "failed") {
		t.Errorf("journal: %+v", entries)
	}
}

func TestAssistantConfigLayers(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte("assistant:\n  base_url: http://127.0.0.1:8080/v1\n  model: llama\n  json_schema: false\n  timeout: 30s\n"), 0o644)
	c, err := incident.LoadConfig(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := c.AssistantConfig(func(string) string { return "" })
	if err != nil || cfg.Offline || cfg.Model != "llama" || cfg.JSONSchema || cfg.Timeout.Seconds() != 30 {
		t.Errorf("from the file: %+v %v", cfg, err)
	}
	cfg, _ = c.AssistantConfig(func(k string) string { return map[string]string{assist.EnvModel: "qwen"}[k] })
	if cfg.Model != "qwen" || cfg.BaseURL != "http://127.0.0.1:8080/v1" {
		t.Errorf("the environment wins: %+v", cfg)
	}
	key := func(k string) string {
		return map[string]string{assist.EnvAPIKey: "sk-responders-own"}[k]
	}
	if cfg, _ = c.AssistantConfig(key); cfg.APIKey != "" || cfg.BaseURL != "http://127.0.0.1:8080/v1" {
		t.Errorf("the responder's key would go to the endpoint the workspace names: %+v", cfg)
	}
	both := func(k string) string {
		return map[string]string{assist.EnvAPIKey: "sk-responders-own", assist.EnvBaseURL: "https://llm.internal/v1"}[k]
	}
	if cfg, _ = c.AssistantConfig(both); cfg.APIKey != "sk-responders-own" || cfg.BaseURL != "https://llm.internal/v1" {
		t.Errorf("an endpoint the environment names gets the key: %+v", cfg)
	}
	os.WriteFile(filepath.Join(dir, "cordon.yaml"), []byte("assistant:\n  api_key: sk-nope\n"), 0o644)
	if _, err := incident.LoadConfig(dir, false); !errors.Is(err, incident.ErrConfig) || !strings.Contains(err.Error(), "api_key") {
		t.Errorf("a key in the file must be refused: %v", err)
	}
}
