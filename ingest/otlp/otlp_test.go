package otlp_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/otlp"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
)

// genai-agent.jsonl is hand-written (no real GenAI capture exists; see
// testdata/otlp/SOURCE.md); the two others are the OTLP repository's examples.
func TestOTLPGolden(t *testing.T) {
	for name, file := range map[string]string{
		"otlp-genai-agent": parsetest.Testdata("otlp", "genai-agent.jsonl"),
		"otlp-proto-trace": parsetest.Sample("otel_genai", "otlp-proto-examples-trace.json"),
		"otlp-proto-logs":  parsetest.Sample("otel_genai", "otlp-proto-examples-logs.json"),
	} {
		t.Run(name, func(t *testing.T) {
			parsetest.CheckGolden(t, name, parsetest.ParseFile(t, otlp.New(), file))
		})
	}
}

func TestOTLPGenAISpans(t *testing.T) {
	c := parsetest.ParseFile(t, otlp.New(), parsetest.Testdata("otlp", "genai-agent.jsonl"))
	if len(c.Rejects) != 1 || c.Rejects[0].Origin != "genai-agent.jsonl:5" || !strings.Contains(c.Rejects[0].Reason, "no startTimeUnixNano") {
		t.Errorf("rejects: %+v", c.Rejects)
	}
	kinds := []string{}
	for _, ev := range c.Events {
		kinds = append(kinds, ev.Kind)
	}
	want := "session_start model_call tool_call policy_decision policy_decision policy_decision tool_call policy_decision other session_start tool_call model_call"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("kinds:\n got %s\nwant %s", strings.Join(kinds, " "), want)
	}
	agent := c.Events[0]
	if agent.Agent != "asst_7Hq2ZcLk1dVbN0rT" || agent.Session != "conv_5j66UpCpwteGg4YSxUnt7lPY" || agent.Model != "gpt-4o-2024-08-06" ||
		agent.Pod != "evals/agent-7-7d9f8c6b5-x2k4q" || agent.SrcIP != "10.0.3.7" || agent.Host != "eval-node-3" || agent.Pid != 4242 ||
		!strings.HasPrefix(agent.Container, "3f2a9c1d7e88") || agent.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("invoke_agent identity: %+v", agent)
	}
	tool, gate := c.Events[2], c.Events[3]
	if tool.Agent != agent.Agent || tool.Session != agent.Session || tool.SrcIP != "" || tool.Decision != "error" ||
		tool.Cmdline != "curl -s http://169.254.169.254/latest/meta-data/iam/security-credentials/" || tool.CallID != "call_VSPygqKTWdrhaFErNvMV18Yl" {
		t.Errorf("execute_tool: %+v", tool)
	}
	if gate.Decision != "deny" || gate.CallID != tool.CallID || gate.SpanID != tool.SpanID {
		t.Errorf("disposition: %+v", gate)
	}
	if g := c.Events[4]; g.Decision != "deny" || g.Policy != "gr-egress-7@3" || g.Status != "action=GUARDRAIL_INTERVENED" {
		t.Errorf("guardrail: %+v", g)
	}
	if w, sim := c.Events[6], c.Events[7]; w.Path != "/home/agent/.bashrc" || sim.Decision != "deny" || !strings.Contains(strings.Join(sim.Tags, ","), "simulated") {
		t.Errorf("kvlist arguments / simulate: %+v %+v", w, sim)
	}
	if mcp := c.Events[10]; mcp.Agent != "file-auditor" || mcp.Session != "mcp-sess-0c41d9" || mcp.Path != "/etc/shadow" || mcp.Tool != "read_file" ||
		mcp.Container != "9d1c7a2b3e4f5061728394a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f" {
		t.Errorf("MCP tools/call: %+v", mcp)
	}
	for _, ev := range c.Events {
		if strings.Contains(ev.Raw, "resourceSpans") {
			t.Errorf("%s raw is the whole export, not its span", ev.Kind)
		}
	}
}

func otlpOne(t *testing.T, rec string) []evidence.Event {
	t.Helper()
	evs, err := otlp.New().Parse(parse.Record{Data: []byte(rec), Line: 1})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestOTLPValueEncodings(t *testing.T) {
	evs := otlpOne(t, `{"resourceSpans":[{"resource":{"attributes":[{"key":"process.pid","value":{"intValue":"77"}}]},
	 "scopeSpans":[{"spans":[{"traceId":"S/kvNXezTaajzpKdDg5HNg==","spanId":"APBnqgupArc=","name":"chat m",
	  "startTimeUnixNano":1784628301250000001,"kind":"SPAN_KIND_CLIENT","status":{"code":"STATUS_CODE_ERROR"},
	  "attributes":[{"key":"gen_ai.usage.input_tokens","value":{"intValue":12}},{"key":"gen_ai.response.finish_reasons","value":{"arrayValue":{"values":[{"stringValue":"stop"},{"stringValue":"length"}]}}},
	   {"key":"x.d","value":{"doubleValue":"NaN"}},{"key":"x.b","value":{"bytesValue":"AQI="}}]}]}]}]}`)
	ev := evs[0]
	if ev.Time.UnixNano() != 1784628301250000001 {
		t.Errorf("nanoseconds lost: %d", ev.Time.UnixNano())
	}
	if ev.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || ev.SpanID != "00f067aa0ba902b7" {
		t.Errorf("base64 ids not converted to hex: %s %s", ev.TraceID, ev.SpanID)
	}
	if ev.Kind != "model_call" || ev.Pid != 77 || ev.Decision != "error" || !strings.Contains(ev.Message, "tokens in 12 out 0 finish stop,length") {
		t.Errorf("%+v", ev)
	}
}

func TestOTLPSniff(t *testing.T) {
	p := otlp.New()
	for rec, want := range map[string]bool{
		`{"resourceSpans":[]}`:                           true,
		`{"resourceLogs":[{"scopeLogs":[]}]}`:            true,
		`{"resourceMetrics":[]}`:                         false,
		`{"resourceSpans":"x"}`:                          false,
		`{"v":1,"ts":"2026-07-21T10:00:00Z","type":"x"}`: false,
		`{"version": 2, "eval": {}}`:                     false,
	} {
		if got := p.Sniff([]byte(rec)); got != want {
			t.Errorf("%s: sniffed %v", rec, got)
		}
	}
}

func FuzzOTLP(f *testing.F) {
	parsetest.Fuzz(f, otlp.New(), parsetest.Testdata("otlp", "genai-agent.jsonl"), parsetest.Sample("otel_genai", "otlp-proto-examples-trace.json"),
		parsetest.Sample("otel_genai", "otlp-proto-examples-logs.json"))
}
