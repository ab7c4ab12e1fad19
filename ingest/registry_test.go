package ingest

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// collect is a Sink that keeps everything. These helpers are parsetest's
// for ingest's own tests, which cannot import parsetest (it imports ingest).
type collect struct {
	events  []evidence.Event
	rejects []parse.Reject
}

func (c *collect) Event(ev evidence.Event) error { c.events = append(c.events, ev); return nil }
func (c *collect) Reject(r parse.Reject) error   { c.rejects = append(c.rejects, r); return nil }

// parseFile parses a sample with p as ingest would.
func parseFile(t *testing.T, p parse.Parser, path string) *collect {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &collect{}
	if _, err := Stream(f, filepath.Base(path), p, Position{}, c, nil); err != nil {
		t.Fatalf("stream %s: %v", path, err)
	}
	return c
}

// sample is the path of a real format sample.
func sample(parts ...string) string {
	return filepath.Join(append([]string{"testdata", "formats"}, parts...)...)
}

func TestSensorSamplesSniffThroughRegistry(t *testing.T) {
	check := func(dir, file, want string) {
		f, err := os.Open(sample(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		p, err := Sniff(bufio.NewReader(f), Parsers())
		if err != nil || p.Format() != want {
			t.Errorf("%s/%s: sniffed %v (%v), want %s", dir, file, p, err, want)
		}
	}
	for _, f := range []string{"falco-website-alerts.jsonl", "falco-website-metrics-snapshot.json", "falcosidekick-readme-alert.json"} {
		check("falco", f, "falco")
	}
	tetragon, _ := filepath.Glob(sample("tetragon", "*.json*"))
	for _, f := range tetragon {
		check("tetragon", filepath.Base(f), "tetragon")
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
	formatOf := map[string]string{"inspect_ai": "inspect", "otel_genai": "otlp", "k8s_audit": "k8s-audit",
		"github_audit": "github-audit", "gcp_audit": "gcp-audit"}
	// the documentation's examples show "only the most relevant fields":
	// the two without a timestamp are rejected (see its SOURCE.md)
	rejects := map[string]int{"gcp-iam-docs-examples-service-accounts.jsonl": 2}
	for _, dir := range []string{"squid", "envoy", "falco", "tetragon", "gateways", "inspect_ai", "otel_genai",
		"cloudtrail", "k8s_audit", "github_audit", "gcp_audit"} {
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
				want := parse.FirstOf(formatOf[dir], dir)
				if p.Format() != want && !(dir == "squid" && (p.Format() == "squid-audit" || p.Format() == "squid-firewall")) {
					t.Errorf("sniffed as %s", p.Format())
				}
				c := parseFile(t, p, f)
				if len(c.events) == 0 || len(c.rejects) != rejects[filepath.Base(f)] {
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
		least := 10
		switch p.Format() {
		case "cloudtrail":
			least = 1 // a trail delivers a file per five minutes, however few its records
		case "k8s-audit":
			least = 1 // persistence-after-kill's: the one exec a responder made
		}
		if strings.Contains(filepath.ToSlash(f), "/eval-run-") {
			least = 1 // an evaluation run: its sensors see the canaries it touched, no more
		}
		if len(c.events) < least || len(c.rejects) != 0 {
			t.Errorf("%s (%s): %d events, %d rejects, first %+v", f, p.Format(), len(c.events), len(c.rejects), c.rejects)
		}
	}
	if n < 12 {
		t.Errorf("only %d evidence files under sample-incidents", n)
	}
}
