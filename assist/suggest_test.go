package assist

import (
	"strings"
	"testing"
)

func TestParseSuggestion(t *testing.T) {
	s, a := ParseSuggestion("```json\n" + `{"query":"agent:agent-12 credential:cred-9 time:>=\"2026-07-21T10:05:00Z\"","explanation":"agent-12's uses of cred-9 after the kill","event_ids":["ev12"]}` + "\n```")
	if !s.Runnable() || s.Hits != -1 || len(a.Claims) != 1 || a.Claims[0].EventIDs[0] != "ev12" {
		t.Fatalf("suggestion %+v, answer %+v", s, a)
	}
	if q, err := s.Parsed(); err != nil || q.IsAll() {
		t.Errorf("parsed %v, %v", q, err)
	}
	bad, a := ParseSuggestion(`{"query":"agent:(agent-12","explanation":"x"}`)
	if bad.Runnable() || bad.Err == "" || !strings.Contains(a.Notes, "cannot run") {
		t.Errorf("an unparsable query: %+v %+v", bad, a)
	}
	none, _ := ParseSuggestion("I would search for the agent.")
	if none.Runnable() || none.Query != "" {
		t.Errorf("prose: %+v", none)
	}
	empty, _ := ParseSuggestion(`{"query":"","explanation":"the evidence has no token"}`)
	if empty.Runnable() || empty.Err != "the model wrote no query" {
		t.Errorf("empty: %+v", empty)
	}
}
