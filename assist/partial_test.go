package assist

import (
	"strings"
	"testing"
)

func TestPartialClaims(t *testing.T) {
	full := `{"claims":[{"text":"agent-7 probed pastebin","event_ids":["ev04","ev05"],"phase":"detect"},{"text":"it read {credentials}","event_ids":["ev08"]},{"text":"then wrote .bashrc","event_ids":["ev1`
	for _, tc := range []struct {
		name, text string
		claims     int
		notes      string
	}{
		{"cut in the third claim", full, 2, ""},
		{"cut after a comma", `{"claims":[{"text":"a","event_ids":["ev01"]},`, 1, ""},
		{"cut in a key", `{"claims":[{"text":"a","event_ids":["ev01"]}],"no`, 1, ""},
		{"notes complete, object not closed", `{"claims":[{"text":"a","event_ids":["ev01"]}],"notes":"sampled"`, 1, "sampled"},
		{"fenced", "```json\n" + `{"claims":[{"text":"a","event_ids":["ev01"]},{"te`, 1, ""},
		{"nothing complete", `{"claims":[{"text":"agent-7 pro`, 0, ""},
	} {
		claims, notes, ok := PartialClaims(tc.text)
		if !ok || len(claims) != tc.claims || notes != tc.notes {
			t.Errorf("%s: %d claims %q (ok %v), want %d %q", tc.name, len(claims), notes, ok, tc.claims, tc.notes)
		}
	}
	if _, _, ok := PartialClaims("I cannot answer that."); ok {
		t.Error("prose read as an answer object")
	}
	claims, _, _ := PartialClaims(full)
	if claims[1].Text != "it read {credentials}" || strings.Join(claims[0].EventIDs, ",") != "ev04,ev05" || claims[0].Phase != "detect" {
		t.Errorf("claims %+v", claims)
	}
}

// TestTruncatedReplyKeepsCompleteClaims is the regression test of "a reply
// cut off mid-JSON becomes one claim that cites nothing".
func TestTruncatedReplyKeepsCompleteClaims(t *testing.T) {
	text := `{"claims":[{"text":"agent-7 probed pastebin","event_ids":["ev04"]},{"text":"and then","event_ids":["ev`
	a := ParseReply(text, true)
	if !a.Truncated || !a.Structured || len(a.Claims) != 1 || a.Claims[0].EventIDs[0] != "ev04" {
		t.Fatalf("answer %+v", a)
	}
	if !strings.Contains(a.Text(), "TRUNCATED") {
		t.Errorf("the text does not say it was cut off:\n%s", a.Text())
	}
	// an unclosed object the endpoint did not say it cut is still repaired
	if a := ParseReply(text, false); !a.Truncated || len(a.Claims) != 1 {
		t.Errorf("unclosed reply: %+v", a)
	}
	// a complete reply is not truncated, whatever the finish reason
	if a := ParseReply(`{"claims":[{"text":"x","event_ids":["ev01"]}]}`, false); a.Truncated || len(a.Claims) != 1 {
		t.Errorf("complete reply: %+v", a)
	}
	// prose stays one uncited claim
	if a := ParseReply("the agent did things", false); a.Structured || a.Truncated || len(a.Claims) != 1 {
		t.Errorf("prose: %+v", a)
	}
}

func FuzzPartialClaims(f *testing.F) {
	f.Add(`{"claims":[{"text":"a","event_ids":["ev01"]},{"te`)
	f.Add(`{"claims":[}]`)
	f.Add(`{"a":1,"claims":[1,{"text":"x"}],"notes":"n"}`)
	f.Fuzz(func(t *testing.T, s string) {
		claims, _, _ := PartialClaims(s)
		if len(claims) > len(s) {
			t.Fatalf("%d claims from %d bytes", len(claims), len(s))
		}
	})
}
