package ingest

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
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

func TestProxySamplesSniffThroughRegistry(t *testing.T) {
	for path, want := range proxySamples() {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Sniff(bufio.NewReader(f), Parsers())
		f.Close()
		if err != nil || p.Format() != want {
			t.Errorf("%s: sniffed %v (%v), want %s", path, p, err, want)
		}
	}
	// Not access logs: Squid's config, and the docs' wrapped Envoy line.
	for _, path := range []string{sample("squid", "gh-aw-firewall_squid.conf"), sample("envoy", "envoy-docs-default-format-example.txt")} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Sniff(bufio.NewReader(f), Parsers())
		f.Close()
		if !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("%s: sniffed as %v, want ErrUnknownFormat", path, p)
		}
	}
}

// Every proxy parser rejects the first record of every other sample:
// sensors, ledgers, gateways, and the other proxy formats.
func TestProxySniffIsStrict(t *testing.T) {
	mine := []Parser{NewSquid(), NewSquidFirewall(), NewSquidAudit(), NewEnvoy(), NewEnvoyText()}
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
			if p.Framing() == JSON {
				rec = obj
			}
			got := rec != nil && p.Sniff(rec)
			if want := own[path] == p.Format(); got != want {
				t.Errorf("%s: %s.Sniff = %v, want %v", path, p.Format(), got, want)
			}
		}
	}
	for _, tc := range squidCases {
		if NewSquidFirewall().Sniff([]byte(tc.line)) || NewEnvoyText().Sniff([]byte(tc.line)) {
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
	for path := range proxySamples() {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	parsers := []Parser{NewSquid(), NewSquidFirewall(), NewSquidAudit(), NewEnvoy(), NewEnvoyText()}
	f.Fuzz(func(t *testing.T, data []byte) {
		sniffed := 0
		for _, p := range parsers {
			evs, err := p.Parse(Record{Data: data, Line: 1})
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
