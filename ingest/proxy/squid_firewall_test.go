package proxy_test

import (
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
	"github.com/cordon-ir/cordon/ingest/proxy"
)

func TestSquidFirewallGolden(t *testing.T) {
	c := parsetest.ParseFile(t, proxy.NewSquidFirewall(), parsetest.Sample("squid", "gh-aw-firewall_firewall_detailed_access.log"))
	if len(c.Events) != 3 || len(c.Rejects) != 0 {
		t.Fatalf("got %d events, %d rejects; want 3 and 0: %+v", len(c.Events), len(c.Rejects), c.Rejects)
	}
	parsetest.CheckGolden(t, "squid-firewall-gh-aw", c)
}

func TestSquidAuditGolden(t *testing.T) {
	c := parsetest.ParseFile(t, proxy.NewSquidAudit(), parsetest.Sample("squid", "gh-aw-firewall_audit.jsonl"))
	if len(c.Events) != 3 || len(c.Rejects) != 0 {
		t.Fatalf("got %d events, %d rejects; want 3 and 0: %+v", len(c.Events), len(c.Rejects), c.Rejects)
	}
	parsetest.CheckGolden(t, "squid-audit-gh-aw", c)
}

// The firewall_detailed line and the audit.jsonl record of one request give
// the same network facts.
func TestSquidFirewallAndAuditAgree(t *testing.T) {
	fw := parsetest.ParseFile(t, proxy.NewSquidFirewall(), parsetest.Sample("squid", "gh-aw-firewall_firewall_detailed_access.log"))
	au := parsetest.ParseFile(t, proxy.NewSquidAudit(), parsetest.Sample("squid", "gh-aw-firewall_audit.jsonl"))
	for i := range fw.Events {
		a, b := fw.Events[i], au.Events[i]
		if !a.Time.Equal(b.Time) || a.Decision != b.Decision || a.Status != b.Status || a.SrcIP != b.SrcIP ||
			a.DstHost != b.DstHost || a.DstIP != b.DstIP || a.DstPort != b.DstPort || a.URL != b.URL || a.Message != b.Message {
			t.Errorf("record %d differs:\nfirewall %+v\naudit    %+v", i+1, a, b)
		}
	}
}

func TestSquidFirewallCases(t *testing.T) {
	for _, tc := range []squidCase{
		{name: "no reply, IPv6 client printed without brackets",
			line:     `1774291010.500 2001:db8::5:40112 - -:- - - 0 NONE_NONE:HIER_NONE error:transaction-end-before-headers "-"`,
			decision: "error", status: "000", src: "2001:db8::5",
			tags: "NONE_NONE,HIER_NONE", message: "error:transaction-end-before-headers -> 000 NONE_NONE"},
		{name: "plain HTTP allowed, Host header port",
			line:     `1774291011.000 172.30.0.20:55900 api.github.com 140.82.116.5:80 1.1 GET 301 TCP_MISS:HIER_DIRECT http://api.github.com/zen "curl/7.81.0"`,
			decision: "allow", status: "301", method: "GET", src: "172.30.0.20", dstHost: "api.github.com", dstIP: "140.82.116.5", dstPort: 80,
			tags: "TCP_MISS,HIER_DIRECT", message: "GET http://api.github.com/zen -> 301 TCP_MISS"},
		{name: "user agent with spaces and quotes",
			line:     `1774291012.000 172.30.0.20:55910 evil.example.com:443 -:- 1.1 CONNECT 403 TCP_DENIED:HIER_NONE evil.example.com:443 "python "requests" 2.31"`,
			decision: "deny", status: "403", method: "CONNECT", src: "172.30.0.20", dstHost: "evil.example.com", dstPort: 443,
			tags: "TCP_DENIED,HIER_NONE", message: "CONNECT evil.example.com:443 -> 403 TCP_DENIED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !proxy.NewSquidFirewall().Sniff([]byte(tc.line)) {
				t.Errorf("Sniff = false")
			}
			evs, err := proxy.NewSquidFirewall().Parse(parse.Record{Data: []byte(tc.line)})
			if err != nil {
				t.Fatal(err)
			}
			checkProxyEvent(t, evs, tc)
		})
	}
	evs, _ := proxy.NewSquidFirewall().Parse(parse.Record{Data: []byte(`1774290908.910 172.30.0.20:55872 api.github.com:443 140.82.116.5:443 1.1 CONNECT 200 TCP_TUNNEL:HIER_DIRECT api.github.com:443 "curl/7.81.0"`)})
	if len(evs) != 1 || evs[0].SrcPort != 55872 {
		t.Errorf("client port lost: %+v", evs)
	}
}

func TestSquidFirewallRejects(t *testing.T) {
	for line, want := range map[string]string{
		`1774290909.186 172.30.0.20 evil.example.com:443 -:- 1.1 CONNECT 403 TCP_DENIED:HIER_NONE evil.example.com:443 "curl/7.81.0"`:      `field 2 "172.30.0.20": want client ip:port`,
		`1774290909.186 172.30.0.20:55890 evil.example.com:443 -:- 1.1 CONNECT 403 TCP_DENIED/403 evil.example.com:443 "curl/7.81.0"`:      `field 8 "TCP_DENIED/403": want result:hierarchy`,
		`1774290909.186 172.30.0.20:55890 evil.example.com:443 - 1.1 CONNECT 403 TCP_DENIED:HIER_NONE evil.example.com:443 "curl/7.81.0"`:  `field 4 "-": want server ip:port`,
		`1774290909.186 172.30.0.20:55890 evil.example.com:443 -:- 1.1 CONNECT 403 TCP_DENIED:HIER_NONE evil.example.com:443 curl/7.81.0`:  `field 10 "curl/7.81.0": want quoted User-Agent`,
		`1774290909.186 172.30.0.20:55890 evil.example.com:443 -:- 1.1 CONNECT 403 TCP_DENIED:HIER_NONE`:                                   "has 8 fields, want 10",
		`1774290909.186 172.30.0.20:55890 evil.example.com:443 -:- 1.1 CONNECT forbidden TCP_DENIED:HIER_NONE evil.example.com:443 "curl"`: `field 7 "forbidden": want HTTP status`,
	} {
		_, err := proxy.NewSquidFirewall().Parse(parse.Record{Data: []byte(line)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) = %v, want an error saying %q", line, err, want)
		}
	}
}

func TestSquidAuditRejects(t *testing.T) {
	for rec, want := range map[string]string{
		`{"_schema":"audit/v0.23.1","ts":1774290909.186,"client":"172.30.0.20","host":"a"b","dest":"-:-","method":"CONNECT","status":403,"decision":"TCP_DENIED","url":"x"}`: "not a squid audit record",
		`{"_schema":"other/v1","ts":1774290909.186,"client":"172.30.0.20","dest":"-:-","status":403,"decision":"TCP_DENIED"}`:                                                `_schema "other/v1"`,
		`{"_schema":"audit/v0.23.1","client":"172.30.0.20","dest":"-:-","status":403,"decision":"TCP_DENIED"}`:                                                               "has no ts",
		`{"_schema":"audit/v0.23.1","ts":1774290909.186,"client":"172.30.0.20","dest":"-:-","status":403,"decision":"deny"}`:                                                 `decision "deny": want a Squid result code`,
		`{"_schema":"audit/v0.23.1","ts":1774290909.186,"client":"172.30.0.20","dest":"-:-","decision":"TCP_DENIED"}`:                                                        `status "": want an HTTP status`,
	} {
		_, err := proxy.NewSquidAudit().Parse(parse.Record{Data: []byte(rec)})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error saying %q", rec, err, want)
		}
	}
}

// Straight from Squid, before awf adds _schema, the record still parses.
func TestSquidAuditWithoutSchema(t *testing.T) {
	rec := []byte(`{"ts":1774290909.186,"client":"172.30.0.20","host":"evil.example.com:443","dest":"-:-","method":"CONNECT","status":403,"decision":"TCP_DENIED","url":"evil.example.com:443"}`)
	if !proxy.NewSquidAudit().Sniff(rec) {
		t.Error("Sniff = false")
	}
	evs, err := proxy.NewSquidAudit().Parse(parse.Record{Data: rec})
	if err != nil || evs[0].Decision != "deny" || evs[0].DstHost != "evil.example.com" {
		t.Errorf("got %+v, %v", evs, err)
	}
}

func FuzzSquidFirewall(f *testing.F) {
	parsetest.Fuzz(f, proxy.NewSquidFirewall(), parsetest.Sample("squid", "gh-aw-firewall_firewall_detailed_access.log"))
}

func FuzzSquidAudit(f *testing.F) {
	parsetest.Fuzz(f, proxy.NewSquidAudit(), parsetest.Sample("squid", "gh-aw-firewall_audit.jsonl"))
}

// TestSquidFirewallUserAgent: the quoted User-Agent, Squid's escapes
// undone; "-" is none.
func TestSquidFirewallUserAgent(t *testing.T) {
	for line, want := range map[string]string{
		`1774290908.910 172.30.0.20:55872 api.github.com:443 140.82.116.5:443 1.1 CONNECT 200 TCP_TUNNEL:HIER_DIRECT api.github.com:443 "curl/7.81.0"`:              "curl/7.81.0",
		`1774290908.910 172.30.0.20:55872 api.github.com:443 140.82.116.5:443 1.1 CONNECT 200 TCP_TUNNEL:HIER_DIRECT api.github.com:443 "Mozilla/5.0 (\"x\") a\\b"`: `Mozilla/5.0 ("x") a\b`,
		`1774290908.910 172.30.0.20:55872 api.github.com:443 140.82.116.5:443 1.1 CONNECT 200 TCP_TUNNEL:HIER_DIRECT api.github.com:443 "-"`:                        "",
	} {
		evs, err := proxy.NewSquidFirewall().Parse(parse.Record{Data: []byte(line)})
		if err != nil || len(evs) != 1 || evs[0].UserAgent != want {
			t.Errorf("%s: %+v %v, want user agent %q", line, evs, err, want)
		}
	}
}
