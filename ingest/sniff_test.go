package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/ingest/proxy"
)

// proxySamples maps each proxy sample to the format it must sniff as.
func proxySamples() map[string]string {
	return map[string]string{
		sample("squid", "logstash-patterns-core_squid_spec_lines.log"):       "squid",
		sample("squid", "gh-aw-firewall_firewall_detailed_access.log"):       "squid-firewall",
		sample("squid", "gh-aw-firewall_audit.jsonl"):                        "squid-audit",
		sample("envoy", "envoy-gateway-docs-accesslog-direct_response.json"): "envoy",
		"testdata/envoy/envoy-docs-default-format-oneline.txt":               "envoy-text",
	}
}

// Every proxy parser rejects the first record of every other sample:
// sensors, ledgers, gateways, and the other proxy formats.
func TestProxySniffIsStrict(t *testing.T) {
	mine := []parse.Parser{proxy.NewSquid(), proxy.NewSquidFirewall(), proxy.NewSquidAudit(), proxy.NewEnvoy(), proxy.NewEnvoyText()}
	var files []string
	for _, glob := range []string{"testdata/formats/*/*", "testdata/ledger/*", "testdata/envoy/*"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	own := proxySamples()
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > sniffWindow {
			data = data[:sniffWindow]
		}
		line, obj := firstRecords(data)
		for _, p := range mine {
			rec := line
			if p.Framing() == parse.JSON {
				rec = obj
			}
			got := rec != nil && p.Sniff(rec)
			if want := own[path] == p.Format(); got != want {
				t.Errorf("%s: %s.Sniff = %v, want %v", path, p.Format(), got, want)
			}
		}
	}
}
