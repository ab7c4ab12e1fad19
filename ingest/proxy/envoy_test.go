package proxy_test

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
	"github.com/cordon-ir/cordon/ingest/proxy"
)

func TestEnvoyGolden(t *testing.T) {
	c := parsetest.ParseFile(t, proxy.NewEnvoy(), parsetest.Sample("envoy", "envoy-gateway-docs-accesslog-direct_response.json"))
	if len(c.Events) != 1 || len(c.Rejects) != 0 {
		t.Fatalf("got %d events, %d rejects; want 1 and 0: %+v", len(c.Events), len(c.Rejects), c.Rejects)
	}
	parsetest.CheckGolden(t, "envoy-gateway-direct-response", c)
}

func TestEnvoyTextGolden(t *testing.T) {
	c := parsetest.ParseFile(t, proxy.NewEnvoyText(), parsetest.Testdata("envoy", "envoy-docs-default-format-oneline.txt"))
	if len(c.Events) != 1 || len(c.Rejects) != 0 {
		t.Fatalf("got %d events, %d rejects; want 1 and 0: %+v", len(c.Events), len(c.Rejects), c.Rejects)
	}
	parsetest.CheckGolden(t, "envoy-text-docs-default", c)
}

// The docs print the one-line example wrapped in two: each half is a reject
// that says what is wrong, not a crash and not a half-filled event.
func TestEnvoyTextWrappedDocsLineRejectsEachHalf(t *testing.T) {
	c := parsetest.ParseFile(t, proxy.NewEnvoyText(), parsetest.Sample("envoy", "envoy-docs-default-format-example.txt"))
	if len(c.Events) != 0 || len(c.Rejects) != 2 {
		t.Fatalf("got %d events, %d rejects; want 0 and 2", len(c.Events), len(c.Rejects))
	}
	want := []string{"has 8 fields after [START_TIME], want 12", "does not start with [START_TIME]"}
	for i, r := range c.Rejects {
		if !strings.Contains(r.Reason, want[i]) || r.Origin != "envoy-docs-default-format-example.txt:"+strconv.Itoa(i+1) {
			t.Errorf("reject %s: %q, want it to say %q", r.Origin, r.Reason, want[i])
		}
	}
	parsetest.CheckGolden(t, "envoy-text-docs-wrapped", c)
}

// Old Envoy renders every value as a string and "-" for unset; new Envoy
// uses numbers and null. Istio and Envoy Gateway name the keys differently.
// All of them describe the same request and must give the same event.
func TestEnvoyOldAndNewStyleGiveTheSameEvent(t *testing.T) {
	records := map[string]string{
		"istio old strings": `{"start_time":"2026-03-23T18:40:00.125Z","route_name":"-","method":"GET","path":"/v1/upload?id=7","protocol":"HTTP/1.1","response_code":"429","response_flags":"RL","response_code_details":"request_rate_limited","connection_termination_details":"-","bytes_received":"1830","bytes_sent":"18","duration":"1","upstream_service_time":"-","x_forwarded_for":"-","user_agent":"python-requests/2.31.0","request_id":"5b0c7c1e-3f7a-4a0e-9f53-2b7f1c9d8e01","authority":"paste.example.net","upstream_host":"-","upstream_cluster":"outbound|443||paste.example.net","upstream_local_address":"-","downstream_local_address":"203.0.113.20:443","downstream_remote_address":"10.0.3.7:51234","requested_server_name":"-","upstream_transport_failure_reason":"-"}`,
		"istio new numbers": `{"authority":"paste.example.net","bytes_received":1830,"bytes_sent":18,"connection_termination_details":null,"downstream_local_address":"203.0.113.20:443","downstream_remote_address":"10.0.3.7:51234","duration":1,"method":"GET","path":"/v1/upload?id=7","protocol":"HTTP/1.1","request_id":"5b0c7c1e-3f7a-4a0e-9f53-2b7f1c9d8e01","requested_server_name":null,"response_code":429,"response_code_details":"request_rate_limited","response_flags":"RL","route_name":null,"start_time":"2026-03-23T18:40:00.125Z","upstream_cluster":"outbound|443||paste.example.net","upstream_host":null,"upstream_local_address":null,"upstream_service_time":null,"upstream_transport_failure_reason":null,"user_agent":"python-requests/2.31.0","x_forwarded_for":null}`,
		"gateway keys":      `{":authority":"paste.example.net","bytes_received":1830,"bytes_sent":18,"duration":1,"downstream_remote_address":"10.0.3.7:51234","method":"GET","x-envoy-origin-path":"/v1/upload?id=7","response_code":429,"response_code_details":"request_rate_limited","response_flags":"RL","start_time":"2026-03-23T18:40:00.125Z","upstream_host":null,"x-request-id":"5b0c7c1e-3f7a-4a0e-9f53-2b7f1c9d8e01","user-agent":"python-requests/2.31.0"}`,
	}
	var first *evidence.Event
	for name, rec := range records {
		if !proxy.NewEnvoy().Sniff([]byte(rec)) {
			t.Errorf("%s: Sniff = false", name)
		}
		evs, err := proxy.NewEnvoy().Parse(parse.Record{Data: []byte(rec)})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ev := evs[0]
		if first == nil {
			first = &ev
			want := evidence.Event{
				Time: ev.Time, Kind: "net_request", Decision: "deny", Tags: []string{"RL"},
				SrcIP: "10.0.3.7", SrcPort: 51234, DstHost: "paste.example.net", URL: "paste.example.net/v1/upload?id=7",
				Method: "GET", Status: "429", BytesOut: 1830, BytesIn: 18, DurationMS: 1, TraceID: "5b0c7c1e-3f7a-4a0e-9f53-2b7f1c9d8e01",
				UserAgent: "python-requests/2.31.0",
				Message:   "GET paste.example.net/v1/upload?id=7 -> 429 RL request_rate_limited",
			}
			if !reflect.DeepEqual(ev, want) || ev.Time.Format("15:04:05.000") != "18:40:00.125" {
				t.Errorf("%s:\ngot  %+v\nwant %+v", name, ev, want)
			}
			continue
		}
		if !reflect.DeepEqual(ev, *first) {
			t.Errorf("%s differs:\ngot  %+v\nwant %+v", name, ev, *first)
		}
	}
}

func TestEnvoyDecisions(t *testing.T) {
	base := `"start_time":"2026-03-23T18:40:00.125Z","downstream_remote_address":"10.0.3.7:51234"`
	for _, tc := range []struct{ name, fields, decision, kind, status string }{
		{"allowed", `"method":"GET","authority":"pypi.org","path":"/simple/","response_code":200,"response_flags":"-","response_code_details":"via_upstream","upstream_host":"151.101.0.223:443"`, "allow", "net_request", "200"},
		{"upstream 503 passed through", `"method":"GET","authority":"pypi.org","response_code":503,"response_flags":"-","response_code_details":"via_upstream","upstream_host":"151.101.0.223:443"`, "allow", "net_request", "503"},
		{"ext_authz denied", `"method":"CONNECT","authority":"evil.example.com:443","response_code":403,"response_flags":"UAEX","response_code_details":"ext_authz_denied"`, "deny", "net_request", "403"},
		{"rbac denied", `"method":"GET","authority":"evil.example.com","response_code":"403","response_flags":"-","response_code_details":"rbac_access_denied_matched_policy[none]"`, "deny", "net_request", "403"},
		{"ext_authz failed", `"method":"GET","authority":"a.example.com","response_code":403,"response_flags":"UAEX","response_code_details":"ext_authz_error"`, "error", "net_request", "403"},
		{"ext_authz unreachable", `"method":"GET","authority":"a.example.com","response_code":403,"response_flags":"-","response_code_details":"ext_authz_error"`, "error", "net_request", "403"},
		{"upstream connect failure", `"method":"GET","authority":"down.example.com","response_code":"503","response_flags":"UF,URX","upstream_host":"192.0.2.9:443"`, "error", "net_request", "503"},
		{"no route", `"method":"GET","authority":"x.example.com","response_code":404,"response_flags":"NR","response_code_details":"route_not_found"`, "error", "net_request", "404"},
		{"downstream gone", `"method":"POST","authority":"x.example.com","response_code":0,"response_flags":"DC","response_code_details":"downstream_remote_disconnect"`, "error", "net_request", "000"},
		{"old 5xx, no upstream", `"method":"GET","authority":"x.example.com","response_code":"502","response_flags":"-","upstream_host":"-"`, "error", "net_request", "502"},
		{"tcp proxy", `"method":null,"response_code":0,"response_flags":"-","requested_server_name":"api.github.com","upstream_host":"140.82.116.5:443","bytes_sent":5120`, "allow", "net_connect", ""},
		{"tcp proxy, rbac", `"method":"-","response_code":"0","response_flags":"-","connection_termination_details":"rbac_access_denied_matched_policy[none]","requested_server_name":"evil.example.com"`, "deny", "net_connect", ""},
		{"tcp proxy, DNS failed", `"response_code":0,"response_flags":"DF","requested_server_name":"nx.example.com"`, "error", "net_connect", ""},
	} {
		evs, err := proxy.NewEnvoy().Parse(parse.Record{Data: []byte("{" + base + "," + tc.fields + "}")})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		ev := evs[0]
		if ev.Decision != tc.decision || ev.Kind != tc.kind || ev.Status != tc.status || ev.SrcIP != "10.0.3.7" {
			t.Errorf("%s: decision %q kind %q status %q src %q, want %q %q %q (message %q)",
				tc.name, ev.Decision, ev.Kind, ev.Status, ev.SrcIP, tc.decision, tc.kind, tc.status, ev.Message)
		}
	}
}

// A TCP proxy record has no HTTP: its event names the SNI and the upstream.
// A dual-stack listener logs the client IPv4-mapped; it must still match.
func TestEnvoyTCPProxyRecord(t *testing.T) {
	rec := `{"start_time":"2026-03-23T18:40:00.125Z","method":null,"path":null,"response_code":0,"response_flags":"-","bytes_received":812,"bytes_sent":5120,"downstream_remote_address":"[::ffff:10.0.3.7]:51300","requested_server_name":"api.github.com","upstream_host":"140.82.116.5:443","route_name":null}`
	evs, err := proxy.NewEnvoy().Parse(parse.Record{Data: []byte(rec)})
	if err != nil {
		t.Fatal(err)
	}
	ev := evs[0]
	parse.Normalize(&ev) // as the driver does
	if ev.Kind != "net_connect" || ev.Status != "" || ev.SrcIP != "10.0.3.7" || ev.SrcPort != 51300 || ev.DstHost != "api.github.com" || ev.DstIP != "140.82.116.5" ||
		ev.DstPort != 443 || ev.BytesIn != 5120 || ev.BytesOut != 812 || ev.Message != "TCP api.github.com:443" {
		t.Errorf("got %+v", ev)
	}
}

func TestEnvoyRejects(t *testing.T) {
	for rec, want := range map[string]string{
		`{"method":"GET","response_code":200,"response_flags":"-"}`:                                "no start_time",
		`{"start_time":"yesterday","response_code":200,"response_flags":"-"}`:                      `start_time "yesterday": want RFC 3339`,
		`{"start_time":"2026-03-23T18:40:00Z","response_code":"OK","response_flags":"-"}`:          `response_code "OK": want an HTTP status`,
		`[2026-03-23 18:40:00.125][14][warning][config] gRPC config stream closed: 14, no healthy`: "envoy application log line",
		`{"start_time":"2026-03-23T18:40:00Z","response_code":200,`:                                "not an envoy JSON access-log record",
	} {
		_, err := proxy.NewEnvoy().Parse(parse.Record{Data: []byte(rec)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error saying %q", rec, err, want)
		}
	}
}

// Istio's text default carries what Envoy's lacks: details, the client
// address, SNI and the route.
func TestEnvoyTextIstioDefault(t *testing.T) {
	line := `[2026-03-23T18:41:07.310Z] "CONNECT - HTTP/1.1" 403 UAEX ext_authz_denied - "-" 0 0 2 - "-" "curl/8.5.0" "8f7e2a90-1c1b-4f57-b1a3-6f0f0a4f7b10" "evil.example.com:443" "-" - - 10.0.0.2:15001 10.0.3.7:51240 - egress-default`
	if !proxy.NewEnvoyText().Sniff([]byte(line)) {
		t.Error("Sniff = false")
	}
	evs, err := proxy.NewEnvoyText().Parse(parse.Record{Data: []byte(line)})
	if err != nil {
		t.Fatal(err)
	}
	ev := evs[0]
	if ev.Decision != "deny" || ev.SrcIP != "10.0.3.7" || ev.SrcPort != 51240 || ev.DstHost != "evil.example.com" ||
		ev.DstPort != 443 || ev.Policy != "egress-default" || ev.Method != "CONNECT" || ev.URL != "evil.example.com:443" {
		t.Errorf("got %+v", ev)
	}
	if ev.Message != "CONNECT evil.example.com:443 -> 403 UAEX ext_authz_denied" {
		t.Errorf("message %q", ev.Message)
	}
}

func FuzzEnvoy(f *testing.F) {
	parsetest.Fuzz(f, proxy.NewEnvoy(), parsetest.Sample("envoy", "envoy-gateway-docs-accesslog-direct_response.json"))
}

func FuzzEnvoyText(f *testing.F) {
	parsetest.Fuzz(f, proxy.NewEnvoyText(), parsetest.Testdata("envoy", "envoy-docs-default-format-oneline.txt"),
		parsetest.Sample("envoy", "envoy-docs-default-format-example.txt"))
}
