package report_test

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/incident/incidenttest"
	"github.com/cordon-ir/cordon/report"
)

// secretLedger is an agent that reads a token and then uses it on the
// command line and in a URL.
const secretLedger = `{"v":1,"ts":"2026-07-21T10:00:00Z","type":"session_start","agent":"agent-x","session":"s-1","model":"m","objective":"fix the build; GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a","sandbox":{"id":"sb-1","container_id":"c1","ip":"10.0.0.5"},"credentials":[{"id":"tok-1","kind":"api-token"}],"tools_allowed":["bash"],"egress_allowlist":["pypi.org"]}
{"v":1,"ts":"2026-07-21T10:00:05Z","type":"tool_call","agent":"agent-x","session":"s-1","call_id":"c-1","tool":"bash","args":{"cmd":"cat /home/agent/.config/gh/hosts.yml"}}
{"v":1,"ts":"2026-07-21T10:00:06Z","type":"tool_result","agent":"agent-x","session":"s-1","call_id":"c-1","ok":true,"output":"oauth_token: ghp_16C7e42F292c6912E7710c838347Ae178B4a"}
{"v":1,"ts":"2026-07-21T10:00:07Z","type":"tool_call","agent":"agent-x","session":"s-1","call_id":"c-2","tool":"bash","args":{"cmd":"nohup curl -H 'Authorization: token ghp_16C7e42F292c6912E7710c838347Ae178B4a' https://api.github.com/user &"}}
`

const secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

// placeholder is a keyed placeholder's name (Markdown escapes its brackets).
var placeholder = regexp.MustCompile(`SECRET-[0-9a-f]{10}`)

// Every output of the case is redacted by default, with the same
// placeholder for the same secret in each; Unredacted shows it.
func TestOutputsAreRedactedWithTheCasesPlaceholders(t *testing.T) {
	ws := incidenttest.New(t, incidenttest.WriteFile(t, "ledger.jsonl", []byte(secretLedger)))
	ctx := context.Background()
	outputs := map[string]string{}
	r, err := report.Build(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	r.WriteMarkdown(&md)
	outputs["report"] = md.String()
	var html bytes.Buffer
	r.WriteHTML(&html)
	outputs["report.html"] = html.String()
	for _, p := range r.Pictures() {
		outputs[p.Name] = p.SVG
	}
	var ts bytes.Buffer
	if _, red, err := report.Timesketch(ctx, ws, evidence.All(), &ts); err != nil || red.Secrets == 0 || !red.Stable {
		t.Fatalf("timesketch: %+v %v", red, err)
	}
	outputs["timesketch"] = ts.String()
	var oc bytes.Buffer
	if _, _, err := report.OCSF(ctx, ws, "x", &oc); err != nil {
		t.Fatal(err)
	}
	outputs["ocsf"] = oc.String()
	b, _, err := report.STIX(ctx, ws, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var st bytes.Buffer
	report.WriteSTIX(&st, b)
	outputs["stix"] = st.String()
	ins, _, err := report.RedactedIndicators(ctx, ws)
	if err != nil {
		t.Fatal(err)
	}
	var ib strings.Builder
	for _, in := range ins {
		ib.WriteString(in.Value + " " + in.How + "\n")
	}
	outputs["indicators"] = ib.String()

	var first string
	for name, out := range outputs {
		if strings.Contains(out, secret) || strings.Contains(out, "16C7e42F292c6912E") {
			t.Errorf("%s shows the secret", name)
		}
		if name == "ocsf" || name == "stix" || name == "indicators" || strings.HasSuffix(name, ".svg") {
			continue // their text here (findings, file paths, ids, labels) holds no secret to replace
		}
		ph := placeholder.FindString(out)
		if ph == "" {
			t.Errorf("%s has no placeholder:\n%.600s", name, out)
			continue
		}
		if first == "" {
			first = ph
		} else if ph != first {
			t.Errorf("%s names the secret %s, another output %s", name, ph, first)
		}
	}
	if !strings.Contains(md.String(), "Redaction:") || r.Redaction.Secrets == 0 {
		t.Errorf("the report does not say it is redacted: %+v", r.Redaction)
	}

	raw, err := report.Build(ctx, ws, report.Unredacted())
	if err != nil {
		t.Fatal(err)
	}
	var rawMD bytes.Buffer
	raw.WriteMarkdown(&rawMD)
	if !strings.Contains(rawMD.String(), secret) || !raw.Redaction.Off || !strings.Contains(rawMD.String(), "secrets in the evidence are shown as they are") {
		t.Errorf("unredacted: %+v", raw.Redaction)
	}
}
