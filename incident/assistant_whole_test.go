package incident_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
)

// recordingServer answers every chat completion with one claim citing the
// first event line and keeps the last user message it was sent.
func recordingServer(t *testing.T) (*httptest.Server, func() string) {
	var mu sync.Mutex
	var last string
	idLine := regexp.MustCompile(`(?m)^([0-9a-f]{16}) `)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil || len(req.Messages) < 2 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		content := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		last = content
		mu.Unlock()
		id := "none"
		if m := idLine.FindStringSubmatch(content); m != nil {
			id = m[1]
		}
		answer, _ := json.Marshal(map[string]any{"claims": []map[string]any{{"text": "an event", "event_ids": []string{id}}}})
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":%q},"finish_reason":"stop"}]}`, answer)
	}))
	t.Cleanup(srv.Close)
	return srv, func() string { mu.Lock(); defer mu.Unlock(); return last }
}

// TestSummarizeWholeIncidentSendsMoreThanTheFindings is the regression
// test of "the whole incident is only the findings' events": summarize
// with no query said "sent 13 of 13 events" on a larger incident, because
// the findings were added to the selection and the query was then
// skipped.
func TestSummarizeWholeIncidentSendsMoreThanTheFindings(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	ctx := context.Background()
	srv, sent := recordingServer(t)
	c, err := ws.Config()
	if err != nil {
		t.Fatal(err)
	}
	// a context that holds more than the findings' events
	env := map[string]string{assist.EnvBaseURL: srv.URL + "/v1", assist.EnvModel: "local-model", assist.EnvContextTokens: "32768"}
	cfg, err := c.AssistantConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	findings, err := ws.CachedFindings(ctx)
	if err != nil || len(findings) == 0 {
		t.Fatalf("findings: %d, %v", len(findings), err)
	}
	inFindings := map[string]bool{}
	for _, f := range findings {
		for _, id := range f.Events {
			inFindings[id] = true
		}
	}
	total := int(ws.EvidenceStore().Counts().Total)
	if total <= len(inFindings) {
		t.Fatalf("the sample has %d events, %d in findings: no test", total, len(inFindings))
	}

	// What the confirmation reads, before anything is sent.
	p, err := ws.AskPacket(ctx, cfg, incident.AskRequest{Task: assist.TaskSummarize})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != total {
		t.Errorf("the whole incident counts %d events, the store holds %d", p.Total, total)
	}
	if p.Sent <= len(inFindings) && p.Sent < total {
		t.Errorf("sent %d events: only the findings' %d", p.Sent, len(inFindings))
	}
	if p.Sent < total && (!p.Sampled || !strings.Contains(p.SentLine(), "budget")) {
		t.Errorf("%d of %d sent without saying why: %q", p.Sent, total, p.SentLine())
	}
	if !strings.Contains(p.SentLine(), "the whole incident") {
		t.Errorf("the account does not say it is the whole incident: %q", p.SentLine())
	}

	res, err := ws.Ask(ctx, journal.Actor{Name: "oncall", Via: journal.ViaCLI}, cfg, incident.AskRequest{Task: assist.TaskSummarize})
	if err != nil {
		t.Fatal(err)
	}
	body := sent()
	lines := 0
	for _, l := range strings.Split(body, "\n") {
		if len(l) > 17 && l[16] == ' ' && strings.Trim(l[:16], "0123456789abcdef") == "" {
			lines++
		}
	}
	if lines != res.Sent || res.Sent != p.Sent || res.Total != p.Total {
		t.Errorf("the endpoint got %d event lines; the result says %d of %d, the confirmation %d of %d", lines, res.Sent, res.Total, p.Sent, p.Total)
	}
	if !strings.Contains(body, "# "+p.SentLine()+"\n") {
		t.Errorf("the evidence block does not carry the account %q", p.SentLine())
	}
}
