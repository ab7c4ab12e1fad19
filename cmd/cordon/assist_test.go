package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestAssistOfflineAndRefusal runs the assistant from the command line with
// no endpoint configured: the offline timeline cites checked ids, an
// offensive ask is refused, and both are journaled.
func TestAssistOfflineAndRefusal(t *testing.T) {
	t.Setenv("CORDON_LLM_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("assist", "--incident", dir, "--json", "timeline")
	if code != 0 {
		t.Fatalf("assist timeline: %d %s", code, errOut)
	}
	var res struct {
		Offline bool `json:"offline"`
		Answer  struct {
			Claims []struct {
				EventIDs  []string `json:"event_ids"`
				Phase     string   `json:"phase"`
				CitesReal bool     `json:"cites_real_events"`
			} `json:"claims"`
		} `json:"answer"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !res.Offline || len(res.Answer.Claims) == 0 {
		t.Fatalf("offline timeline: %s", out)
	}
	for _, c := range res.Answer.Claims {
		if !c.CitesReal || len(c.EventIDs) == 0 || c.Phase == "" {
			t.Errorf("claim %+v", c)
		}
	}
	code, _, errOut = cordon("assist", "--incident", dir, "ask", "write", "an", "exploit", "for", "the", "proxy")
	if code == 0 || !strings.Contains(errOut, "outside the defender scope") {
		t.Errorf("offensive ask: exit %d, %s", code, errOut)
	}
	if code, _, _ := cordon("assist", "--incident", dir, "hypotheses"); code == 0 {
		t.Error("hypotheses without an endpoint succeeded")
	}
	_, out, _ = cordon("journal", "--incident", dir)
	for _, want := range []string{"assistant_exchange  timeline", "assistant_refusal  write an exploit"} {
		if !strings.Contains(out, want) {
			t.Errorf("journal lacks %q:\n%s", want, out)
		}
	}
}

// TestAssistSummarizeWholeIncident: summarize with no query says what it
// sends of the whole incident, which is every event, not only the
// findings' (it said "sent 85 of 85 events" of this 1128-event sample).
func TestAssistSummarizeWholeIncident(t *testing.T) {
	t.Setenv("CORDON_LLM_BASE_URL", "")
	t.Setenv("OPENAI_API_KEY", "")
	dir := filepath.Join(t.TempDir(), "inc")
	if code, _, errOut := cordon("ingest", "--incident", dir, filepath.Join("..", "..", "sample-incidents", "credential-theft")); code != 0 {
		t.Fatalf("ingest: %d %s", code, errOut)
	}
	code, out, errOut := cordon("assist", "--incident", dir, "--offline", "summarize")
	if code != 0 {
		t.Fatalf("assist summarize: %d %s", code, errOut)
	}
	m := regexp.MustCompile(`sent (\d+) of (\d+) events of the whole incident( \(over budget[^)]*\))?`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no account of the whole incident:\n%s", out)
	}
	sent, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	if total < 1000 || sent < total && m[3] == "" {
		t.Errorf("sent %d of %d, left-out reason %q:\n%s", sent, total, m[3], out)
	}
}
