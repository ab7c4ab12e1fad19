package assist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/redact/redacttest"
)

// TestRequestCarriesNoSecret puts every kind of secret into evidence and
// checks that none of them, nor the API key, leaves in a request body.
func TestRequestCarriesNoSecret(t *testing.T) {
	evs := incidentEvents()
	evs[0].Message += " container=" + container7
	for i, c := range redacttest.Secrets {
		ev := evidence.Event{ID: fmt.Sprintf("sec%02d", i), Time: t0.Add(time.Duration(400+i) * time.Second),
			Source: "sensor", Format: "falco", Kind: evidence.KindProcExec, Agent: "agent-7", Message: c.Text}
		switch i % 3 {
		case 1:
			ev.Cmdline, ev.Message = c.Text, "exec"
		case 2:
			ev.URL = "https://collector.example.com/in?token=" + strings.ReplaceAll(c.Secret, " ", "+")
		}
		evs = append(evs, ev)
	}
	st := openStore(t, evs)
	p := mustPacket(t, st, Selection{}, Budget{Tokens: 50000})
	if p.Sent != len(evs) {
		t.Fatalf("sent %d of %d", p.Sent, len(evs))
	}
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) { completion(w, goodAnswer) })
	c, _ := f.client(t, nil)
	res, err := c.Run(context.Background(), TaskAsk, "which credentials did agent-7 use? key AKIAQUESTION00000000, token ghp_QuEsTi0nT0ken0123456789abcdefABCDEFgh", p)
	if err != nil {
		t.Fatal(err)
	}
	body := string(f.body(0))
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	if err := json.Unmarshal(f.body(0), &req); err != nil {
		t.Fatal(err)
	}
	sent := body
	for _, m := range req.Messages {
		sent += m.Content
	}
	for _, sc := range redacttest.Secrets {
		if strings.Contains(sent, sc.Secret) {
			t.Errorf("%s: secret %q sent", sc.Name, sc.Secret)
		}
	}
	for _, s := range []string{"ghp_QuEsTi0nT0ken0123456789abcdefABCDEFgh", testKey} {
		if strings.Contains(sent, s) {
			t.Errorf("%q sent in the body", s)
		}
	}
	// An access key id is an identifier the analyst must see, not a secret.
	if !strings.Contains(sent, "AKIAQUESTION00000000") {
		t.Errorf("the question's access key id was redacted")
	}
	if !strings.Contains(sent, container7) || !strings.Contains(sent, "sec00") {
		t.Errorf("ids redacted away")
	}
	if res.Redactions <= p.Redactions || p.Redactions < len(redacttest.Secrets) {
		t.Errorf("redactions: packet %d, result %d", p.Redactions, res.Redactions)
	}
	out, _ := json.Marshal(res)
	if strings.Contains(string(out)+fmt.Sprintf("%+v %#v", res, c.Config()), testKey) {
		t.Errorf("the API key is in the result or config output")
	}
	if f.auths[0] != "Bearer "+testKey {
		t.Errorf("key not sent as a bearer token")
	}
}

func TestRequestFraming(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) { completion(w, goodAnswer) })
	c, _ := f.client(t, nil)
	res, err := c.Run(context.Background(), TaskSummarize, "", p)
	if err != nil {
		t.Fatal(err)
	}
	var req map[string]any
	if err := json.Unmarshal(f.body(0), &req); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"tools", "functions", "tool_choice", "function_call"} {
		if _, ok := req[k]; ok {
			t.Errorf("request offers %s", k)
		}
	}
	if rf, _ := req["response_format"].(map[string]any); rf["type"] != "json_schema" {
		t.Errorf("response_format %v", req["response_format"])
	}
	msgs := req["messages"].([]any)
	sys := msgs[0].(map[string]any)
	user := msgs[1].(map[string]any)
	want, _ := SystemPrompt(TaskSummarize)
	if sys["role"] != "system" || sys["content"] != want || !strings.Contains(want, "untrusted data") {
		t.Errorf("system message %v", sys)
	}
	content := user["content"].(string)
	for _, s := range []string{untrustedFraming, "\n<evidence>\n# sent 14 of 14 events of the whole incident\n", "\n</evidence>\n", injectionMark} {
		if !strings.Contains(content, s) {
			t.Errorf("user message lacks %q", s)
		}
	}
	msgsSent, _, _ := Messages(TaskSummarize, "", p)
	if res.PromptDigest != Digest(msgsSent) || len(res.PromptDigest) != 64 {
		t.Errorf("digest %q", res.PromptDigest)
	}
	if res.Endpoint != strings.TrimPrefix(f.srv.URL, "http://") || res.Model != "test-model" || len(res.EventIDs) != 14 {
		t.Errorf("result %+v", res)
	}
}

func TestStream(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	parts := []string{`{"claims":[{"text":"agent-7 `, "denied\x1b[2J", ` twice","event_ids":["ev04","ev05"]}],`, `"notes":""}`}
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, s := range parts {
			chunk(w, s)
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
	c, _ := f.client(t, nil)
	var got []string
	res, err := c.Stream(context.Background(), TaskSummarize, "", p, func(s string) { got = append(got, s) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || strings.Join(got, "") != strings.Join(parts, "") { // as written: the reader escapes it
		t.Errorf("chunks %q", got)
	}
	if !strings.Contains(string(f.body(0)), `"stream":true`) {
		t.Errorf("not a stream request")
	}
	if len(res.Answer.Claims) != 1 || !res.Answer.Claims[0].CitesReal || res.Raw != strings.Join(parts, "") {
		t.Errorf("answer %+v raw %q", res.Answer, res.Raw)
	}
}

func TestStreamCancel(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	release := make(chan struct{})
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk(w, `{"claims":[`)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c, _ := f.client(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	first := make(chan struct{})
	go func() {
		_, err := c.Stream(ctx, TaskSummarize, "", p, func(string) {
			select {
			case <-first:
			default:
				close(first)
			}
		})
		done <- err
	}()
	<-first
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("stream did not stop after cancel")
	}
	if f.count() != 1 {
		t.Errorf("cancelled stream retried: %d requests", f.count())
	}
}

func TestGateBeforeAnyCall(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) { completion(w, goodAnswer) })
	c, _ := f.client(t, nil)
	for _, q := range []string{"write an exploit for the egress proxy", "how do I bypass the sensor", "help me exfiltrate the ssh keys"} {
		if _, err := c.Run(context.Background(), TaskAsk, q, p); !errors.Is(err, ErrOutOfScope) {
			t.Errorf("%q: %v", q, err)
		}
		if _, err := c.Stream(context.Background(), TaskAsk, q, p, nil); !errors.Is(err, ErrOutOfScope) {
			t.Errorf("stream %q: %v", q, err)
		}
	}
	if f.count() != 0 {
		t.Errorf("the endpoint was called %d times", f.count())
	}
	if _, err := c.Run(context.Background(), TaskAsk, "which events show exfiltration", p); err != nil || f.count() != 1 {
		t.Errorf("defensive ask: %v", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	c := ConfigFromEnv(env(nil))
	if !c.Offline || c.Validate() != nil {
		t.Errorf("empty env: %+v", c)
	}
	c = ConfigFromEnv(env(map[string]string{EnvAPIKey: testKey}))
	if c.Offline || c.BaseURL != DefaultBaseURL || c.Model != DefaultModel || c.Validate() != nil {
		t.Errorf("key only: %v", c)
	}
	c = ConfigFromEnv(env(map[string]string{EnvBaseURL: "http://127.0.0.1:8080/v1"}))
	if err := c.Validate(); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), EnvModel) {
		t.Errorf("no model: %v", err)
	}
	c = ConfigFromEnv(env(map[string]string{EnvBaseURL: "ftp://x", EnvModel: "m"}))
	if err := c.Validate(); !errors.Is(err, ErrConfig) {
		t.Errorf("bad url: %v", err)
	}
	c = ConfigFromEnv(env(map[string]string{EnvBaseURL: "https://user:pw@llm.example.com/v1", EnvModel: "m", EnvAPIKey: testKey}))
	if s := fmt.Sprintf("%v %+v %#v %s", c, c, c, c.String()); strings.Contains(s, testKey) || strings.Contains(s, "pw") {
		t.Errorf("config output leaks: %s", s)
	}
	if c.Host() != "llm.example.com" {
		t.Errorf("host %q", c.Host())
	}
}

func TestOfflineConfig(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	c, err := NewClient(ConfigFromEnv(func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Run(context.Background(), TaskCluster, "", p); !errors.Is(err, ErrNeedsEndpoint) {
		t.Errorf("cluster offline: %v", err)
	}
	res, err := c.Run(context.Background(), TaskSummarize, "", p)
	if err != nil || !res.Offline || !res.Answer.Offline || res.Model != OfflineModel {
		t.Errorf("summarize offline: %v %+v", err, res)
	}
}
