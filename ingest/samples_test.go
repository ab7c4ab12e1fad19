package ingest

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every real log sample is recognized by sniffing alone and parses without a
// reject. The files listed are not evidence (a config, schemas) or are known
// to be broken (the docs wrap an Envoy line in two), or belong to formats
// read elsewhere.
func TestEverySampleSniffsAndParses(t *testing.T) {
	notEvidence := map[string]string{
		"gh-aw-firewall_squid.conf":             "squid config",
		"gh-aw-firewall_policy-manifest.json":   "firewall rule list",
		"envoy-docs-default-format-example.txt": "wrapped by the docs; see TestEnvoyText",
		"SOURCE.md":                             "provenance",
	}
	formatOf := map[string]string{"inspect_ai": "inspect", "otel_genai": "otlp"}
	for _, dir := range []string{"squid", "envoy", "falco", "tetragon", "gateways", "inspect_ai", "otel_genai"} {
		files, _ := filepath.Glob(sample(dir, "*"))
		for _, f := range files {
			if notEvidence[filepath.Base(f)] != "" || strings.HasPrefix(filepath.Base(f), "schema-") {
				continue // schema-*.json: the GenAI message JSON schemas
			}
			t.Run(dir+"/"+filepath.Base(f), func(t *testing.T) {
				fh, err := os.Open(f)
				if err != nil {
					t.Fatal(err)
				}
				defer fh.Close()
				p, err := Sniff(bufio.NewReaderSize(fh, sniffWindow), Parsers())
				if err != nil {
					t.Fatal(err)
				}
				want := firstOf(formatOf[dir], dir)
				if p.Format() != want && !(dir == "squid" && (p.Format() == "squid-audit" || p.Format() == "squid-firewall")) {
					t.Errorf("sniffed as %s", p.Format())
				}
				c := parseFile(t, p, f)
				if len(c.events) == 0 || len(c.rejects) != 0 {
					t.Errorf("%d events, rejects %+v", len(c.events), c.rejects)
				}
			})
		}
	}
}

// Every evidence file of every sample incident is sniffed and parses
// without a reject.
func TestSampleIncidentsParse(t *testing.T) {
	files, err := Expand([]string{filepath.Join("..", "sample-incidents")})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if filepath.Ext(f) == ".go" {
			continue
		}
		n++
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Sniff(bufio.NewReaderSize(fh, sniffWindow), Parsers())
		fh.Close()
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		c := parseFile(t, p, f)
		if len(c.events) < 10 || len(c.rejects) != 0 {
			t.Errorf("%s (%s): %d events, %d rejects, first %+v", f, p.Format(), len(c.events), len(c.rejects), c.rejects)
		}
	}
	if n < 12 {
		t.Errorf("only %d evidence files under sample-incidents", n)
	}
}
