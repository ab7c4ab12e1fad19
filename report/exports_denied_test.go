package report

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident/incidenttest"
)

// The STIX export carries every destination the agent tried, the denied
// ones as indicators of anomalous activity with a low confidence and their
// outcome; a directory is a directory object, never a file; and what
// wrote it is said, as in the Timesketch export.
func TestSTIXTriedDestinationsAndDirectories(t *testing.T) {
	ctx := context.Background()
	ws := incidenttest.New(t, "../sample-incidents/egress-probe-exfil")
	b, _, err := STIX(ctx, ws, time.Date(2026, 7, 21, 12, 0, 0, 0, time.UTC), BuiltBy("v9.9.9", []string{"cordon", "export", "--format", "stix"}))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	WriteSTIX(&buf, b)
	var bundle struct {
		Objects []map[string]any `json:"objects"`
	}
	if err := json.Unmarshal(buf.Bytes(), &bundle); err != nil {
		t.Fatal(err)
	}
	denied, reached := 0, 0
	for _, o := range bundle.Objects {
		switch {
		case o["type"] == "identity" && !strings.Contains(o["description"].(string), "cordon v9.9.9: cordon export --format stix"):
			t.Errorf("identity %v", o)
		case o["type"] != "indicator":
		case o["x_cordon_outcome"] == "denied":
			denied++
			if o["confidence"] != float64(20) || o["indicator_types"].([]any)[0] != "anomalous-activity" {
				t.Errorf("a denied destination: %v", o)
			}
		default:
			reached++
			if o["confidence"] != float64(85) {
				t.Errorf("an indicator: %v", o)
			}
		}
	}
	// agent-7 probed 20-odd refused destinations (the sample's README)
	if denied < 10 || reached == 0 {
		t.Errorf("%d denied destinations, %d other indicators", denied, reached)
	}
	// the indicator register says the same, for every denied host of the evidence
	ins, err := Indicators(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	hosts, err := ws.Facet(ctx, evidence.And(evidence.Term("decision", "deny"), evidence.Term("kind", "net_request"), evidence.Term("agent", "agent-7")), time.Time{}, time.Time{}, "dst_host", 1000)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, in := range ins {
		if in.Denied > 0 {
			have[in.Value] = true
		}
	}
	for _, h := range hosts {
		if h.Value != "" && !have[h.Value] {
			t.Errorf("denied destination %s is not in the register", h.Value)
		}
	}

	// credential-theft: agent-12 listed /run/secrets/eval/, a directory
	ws = incidenttest.New(t, "../sample-incidents/credential-theft")
	if b, _, err = STIX(ctx, ws, time.Now()); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	WriteSTIX(&buf, b)
	if err := json.Unmarshal(buf.Bytes(), &bundle); err != nil {
		t.Fatal(err)
	}
	dirs := 0
	for _, o := range bundle.Objects {
		if o["type"] == "file" && (o["name"] == "" || o["name"] == nil) {
			t.Errorf("a file with no name (a directory exported as a file): %v", o)
		}
		if o["type"] == "directory" && o["path"] == "/run/secrets/eval" {
			dirs++
		}
	}
	if dirs == 0 {
		t.Error("the secret store's directory is not a directory object")
	}
}

// The Timesketch export says on every line what wrote it.
func TestTimesketchSaysWhatWroteIt(t *testing.T) {
	ws := incidenttest.New(t, "../sample-incidents/credential-theft")
	var out bytes.Buffer
	n, _, err := Timesketch(context.Background(), ws, evidence.All(), &out, BuiltBy("v9.9.9", []string{"cordon", "export", "--format", "timesketch"}))
	if err != nil || n == 0 {
		t.Fatal(n, err)
	}
	for i, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.Contains(line, `"cordon_exported_by":"cordon v9.9.9: cordon export --format timesketch"`) {
			t.Fatalf("line %d: %.200s", i+1, line)
		}
	}
}
