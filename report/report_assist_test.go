package report_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/report"
)

// TestReportMarksUnverifiedClaims: an assistant exchange in the journal
// appears in the report claim by claim, and a claim citing an id the
// packet did not hold says UNVERIFIED with that id.
func TestReportMarksUnverifiedClaims(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/egress-probe-exfil")
	ctx := context.Background()
	payload, _ := json.Marshal(map[string]any{
		"task": "explain", "model": "m", "endpoint": "127.0.0.1:8080", "question": "what did agent-7 send?",
		"answer": map[string]any{"claims": []map[string]any{
			{"text": "agent-7 posted its credentials", "event_ids": []string{"68b9bd86531872f2"}, "verified": true},
			{"text": "and reached a host never logged", "event_ids": []string{"ffffffffffffffff"}, "verified": false, "unknown_ids": []string{"ffffffffffffffff"}},
			{"text": "probably on purpose", "event_ids": []string{}, "verified": false},
		}},
	})
	who := journal.Actor{Name: "oncall", Via: journal.ViaCLI}
	if _, err := appendEntry(ctx, ws, journal.Entry{Actor: who, Type: journal.EntryAssistantExchange, Text: "explain: 3 claims (2 unverified)", Payload: payload}); err != nil {
		t.Fatal(err)
	}
	r, err := report.Build(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"asked: what did agent-7 send?",
		// journaled before the support check: read, and said so
		"cites real events (support not checked): agent-7 posted its credentials \\[68b9bd86531872f2\\]",
		"UNVERIFIED (unknown ids: ffffffffffffffff): and reached a host never logged",
		"UNVERIFIED (cites no event): probably on purpose",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
