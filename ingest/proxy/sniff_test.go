package proxy_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/parsetest"
	"github.com/cordon-ir/cordon/ingest/proxy"
)

// A native Squid line is not taken for the firewall's format or Envoy's
// text format, whose fields it resembles.
func TestNativeSquidLineSniffsOnlyAsSquid(t *testing.T) {
	for _, tc := range squidCases {
		if proxy.NewSquidFirewall().Sniff([]byte(tc.line)) || proxy.NewEnvoyText().Sniff([]byte(tc.line)) {
			t.Errorf("native squid line sniffed as another format: %s", tc.line)
		}
	}
}

// FuzzProxySniff checks, for any input, that at most one proxy parser
// sniffs it, that a sniffed record parses, and that every event can be
// written as JSON (its time within years 0-9999).
func FuzzProxySniff(f *testing.F) {
	for _, tc := range squidCases {
		f.Add([]byte(tc.line))
	}
	for _, path := range []string{
		parsetest.Sample("squid", "logstash-patterns-core_squid_spec_lines.log"),
		parsetest.Sample("squid", "gh-aw-firewall_firewall_detailed_access.log"),
		parsetest.Sample("squid", "gh-aw-firewall_audit.jsonl"),
		parsetest.Sample("envoy", "envoy-gateway-docs-accesslog-direct_response.json"),
		parsetest.Testdata("envoy", "envoy-docs-default-format-oneline.txt"),
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	parsers := []parse.Parser{proxy.NewSquid(), proxy.NewSquidFirewall(), proxy.NewSquidAudit(), proxy.NewEnvoy(), proxy.NewEnvoyText()}
	f.Fuzz(func(t *testing.T, data []byte) {
		sniffed := 0
		for _, p := range parsers {
			evs, err := p.Parse(parse.Record{Data: data, Line: 1})
			if p.Sniff(data) {
				sniffed++
				if err != nil {
					t.Errorf("%s sniffs %q but rejects it: %v", p.Format(), data, err)
				}
			}
			for _, ev := range evs {
				if _, err := json.Marshal(ev); err != nil {
					t.Errorf("%s event from %q: %v", p.Format(), data, err)
				}
			}
		}
		if sniffed > 1 {
			t.Errorf("%q sniffed by %d proxy parsers", data, sniffed)
		}
	})
}
