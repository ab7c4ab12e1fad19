package assist

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestRetryAfter429(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	f := newFakeLLM(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			w.Header().Set("Retry-After", "7")
			apiError(w, http.StatusTooManyRequests, "rate_limit_exceeded", "slow down")
			return
		}
		completion(w, goodAnswer)
	})
	c, sleeps := f.client(t, nil)
	res, err := c.Run(context.Background(), TaskSummarize, "", p)
	if err != nil {
		t.Fatal(err)
	}
	if f.count() != 2 || res.Attempts != 2 || len(*sleeps) != 1 || (*sleeps)[0] != 7*time.Second {
		t.Errorf("requests %d attempts %d sleeps %v", f.count(), res.Attempts, *sleeps)
	}
}

func TestRetryServerErrors(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	f := newFakeLLM(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n < 2 {
			http.Error(w, "upstream exploded", http.StatusInternalServerError)
			return
		}
		completion(w, goodAnswer)
	})
	c, sleeps := f.client(t, nil)
	if _, err := c.Run(context.Background(), TaskSummarize, "", p); err != nil {
		t.Fatal(err)
	}
	if f.count() != 3 || fmt.Sprint(*sleeps) != "[1s 2s]" {
		t.Errorf("requests %d sleeps %v", f.count(), *sleeps)
	}
	g := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusBadGateway) })
	c, _ = g.client(t, func(c *Config) { c.MaxRetries = 2 })
	_, err := c.Run(context.Background(), TaskSummarize, "", p)
	if !errors.Is(err, ErrEndpoint) || g.count() != 3 || !strings.Contains(err.Error(), "502") {
		t.Errorf("after retries: %v (%d requests)", err, g.count())
	}
}

func TestAuthError(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		apiError(w, http.StatusUnauthorized, "invalid_api_key", "Incorrect API key provided: "+testKey)
	})
	c, _ := f.client(t, nil)
	_, err := c.Run(context.Background(), TaskSummarize, "", p)
	if !errors.Is(err, ErrAuth) || !strings.HasPrefix(err.Error(), "the endpoint refused the API key (401)") {
		t.Fatalf("err %v", err)
	}
	if strings.Contains(err.Error(), testKey) || strings.Contains(err.Error(), "DoNotLeak") {
		t.Errorf("key in error: %v", err)
	}
	if f.count() != 1 {
		t.Errorf("401 retried: %d requests", f.count())
	}
}

func TestModelNotFound(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		apiError(w, http.StatusNotFound, "model_not_found", "The model `nope` does not exist")
	})
	c, _ := f.client(t, func(c *Config) { c.Model = "nope" })
	_, err := c.Run(context.Background(), TaskSummarize, "", p)
	host := strings.TrimPrefix(f.srv.URL, "http://")
	if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), `model "nope" not found at host `+host) {
		t.Errorf("err %v", err)
	}
}

func TestSchemaFallback(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	f := newFakeLLM(t, func(n int, w http.ResponseWriter, _ *http.Request) {
		if n == 0 {
			apiError(w, http.StatusBadRequest, "", "response_format type json_schema is not supported")
			return
		}
		completion(w, goodAnswer)
	})
	c, sleeps := f.client(t, nil)
	res, err := c.Run(context.Background(), TaskSummarize, "", p)
	if err != nil {
		t.Fatal(err)
	}
	if res.JSONSchema || f.count() != 2 || len(*sleeps) != 0 || strings.Contains(string(f.body(1)), "response_format") {
		t.Errorf("fallback: schema %v requests %d", res.JSONSchema, f.count())
	}
	g := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) { completion(w, goodAnswer) })
	c, _ = g.client(t, func(c *Config) { c.JSONSchema = false })
	if _, err := c.Run(context.Background(), TaskSummarize, "", p); err != nil || strings.Contains(string(g.body(0)), "response_format") {
		t.Errorf("schema off: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	release := make(chan struct{})
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c, _ := f.client(t, func(c *Config) { c.Timeout, c.TimeoutPer1K = 50*time.Millisecond, -1 })
	_, err := c.Run(context.Background(), TaskSummarize, "", p)
	if !errors.Is(err, ErrTimeout) || f.count() != 1 {
		t.Errorf("err %v after %d requests", err, f.count())
	}
}

func TestStreamBrokenOff(t *testing.T) {
	st := openStore(t, incidentEvents())
	p := mustPacket(t, st, Selection{}, Budget{})
	f := newFakeLLM(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		chunk(w, `{"claims":[`)
		fmt.Fprint(w, "data: {not json\n\n")
	})
	c, _ := f.client(t, nil)
	_, err := c.Stream(context.Background(), TaskSummarize, "", p, nil)
	if !errors.Is(err, ErrEndpoint) || !strings.Contains(err.Error(), "broke off") || f.count() != 1 {
		t.Errorf("err %v after %d requests", err, f.count())
	}
	if _, err := c.Run(context.Background(), TaskAsk, "  ", p); !errors.Is(err, ErrNoQuestion) {
		t.Errorf("empty ask: %v", err)
	}
}
