package parsetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// Testdata is the path of a file of ingest/testdata from a parser
// package's directory. The samples stay in one place: their SOURCE.md files
// refer to each other, and every parser's sniffing is checked against the
// samples of all the others.
func Testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "testdata"}, parts...)...)
}

// Sample is the path of a real format sample (ingest/testdata/formats).
func Sample(parts ...string) string {
	return Testdata(append([]string{"formats"}, parts...)...)
}

// FirstJSON is the record a JSON sniffer sees: the first of the file.
func FirstJSON(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rec, err := ingest.NewRecordReader(f, parse.JSON, 0, 1).Next()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return rec.Data
}

// NotSensorSamples are real records of formats Falco and Tetragon must not
// claim.
func NotSensorSamples() []string {
	return []string{
		Testdata("ledger", "all-types.jsonl"),
		Sample("envoy", "envoy-gateway-docs-accesslog-direct_response.json"),
		Sample("squid", "gh-aw-firewall_audit.jsonl"),
		Sample("otel_genai", "otlp-proto-examples-trace.json"),
		Sample("otel_genai", "otlp-proto-examples-logs.json"),
		Sample("inspect_ai", "log_read_sample.json"),
		Sample("gateways", "gh-aw-firewall_policy-manifest.json"),
	}
}
