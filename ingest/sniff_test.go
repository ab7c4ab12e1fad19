package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
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
		var line, obj []byte
		if recs := headRecords(data, parse.Lines); len(recs) > 0 {
			line = recs[0]
		}
		if recs := headRecords(data, parse.JSON); len(recs) > 0 {
			obj = recs[0]
		}
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

// A log whose first line was cut (rotated mid-write, a writer that
// crashed), or a JSON log's holding a raw control character, is still
// read as its format:
// that line is rejected with its place and reason, and every other record
// is ingested as from the whole file. Before, the whole file was left out
// as of unknown format.
func TestFirstLineDamagedStillIngested(t *testing.T) {
	for _, path := range []string{
		"testdata/ledger/all-types.jsonl",
		sample("squid", "logstash-patterns-core_squid_spec_lines.log"),
		sample("squid", "gh-aw-firewall_firewall_detailed_access.log"),
		sample("squid", "gh-aw-firewall_audit.jsonl"),
		sample("falco", "falco-website-alerts.jsonl"),
	} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		first, rest, ok := bytes.Cut(data, []byte("\n"))
		if !ok || len(rest) == 0 {
			t.Fatalf("%s: one line only", path)
		}
		whole := ingestData(t, path, data)
		damages := []struct {
			name string
			line []byte
		}{{"cut", first[:len(first)/2]}}
		if strings.HasSuffix(path, ".jsonl") {
			// not JSON any more (a text format takes it as data)
			damages = append(damages, struct {
				name string
				line []byte
			}{"control character", append(append(slices.Clone(first[:len(first)/2]), 0x01), first[len(first)/2:]...)})
		}
		for _, damage := range damages {
			got := ingestData(t, path, append(append(slices.Clone(damage.line), '\n'), rest...))
			if got.res.Format != whole.res.Format || got.res.Events != whole.res.Events-1 {
				t.Errorf("%s, first line %s: read as %q with %d events; the whole file as %q with %d", path, damage.name, got.res.Format, got.res.Events, whole.res.Format, whole.res.Events)
				continue
			}
			if len(got.rejects) != len(whole.rejects)+1 || !strings.HasSuffix(got.rejects[0].Origin, ":1") || got.rejects[0].Reason == "" {
				t.Errorf("%s, first line %s: rejects %+v", path, damage.name, got.rejects)
			}
		}
	}
}

type ingested struct {
	res     FileResult
	rejects []parse.Reject
}

// ingestData ingests data, written under path's name in a folder of its
// own, into an index of its own.
func ingestData(t *testing.T, path string, data []byte) ingested {
	t.Helper()
	f := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rej := &memRejects{}
	res, err := Run(context.Background(), []string{f}, Options{Store: evidence.NewMemStore(), Rejects: rej})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil {
		t.Fatalf("%s: %v", path, res[0].Err)
	}
	return ingested{res[0], rej.rs}
}

// JSON Lines whose first line is cut are read line by line: the first
// line is a record of its own (its parser rejects it) and so is every
// other. A pretty-printed value
// whose first line opens an object is still read as one, however its
// elements are laid out.
func TestJSONLinesWithACutFirstLine(t *testing.T) {
	read := func(s string) (recs []string, errs []int, stream bool) {
		rr := NewRecordReader(strings.NewReader(s), parse.JSON, 0, 1)
		for {
			rec, err := rr.Next()
			if err == io.EOF {
				return recs, errs, rr.Streaming()
			}
			if err != nil {
				errs = append(errs, rec.Line)
				continue
			}
			recs = append(recs, string(rec.Data))
		}
	}
	recs, errs, stream := read("{\"a\":1,\"b\":\"cut he\n{\"a\":2}\n{\"a\":3}\n\n{\"a\":4}\n")
	if stream || len(errs) != 0 || !slices.Equal(recs, []string{`{"a":1,"b":"cut he`, `{"a":2}`, `{"a":3}`, `{"a":4}`}) {
		t.Errorf("a cut first line: stream %v, rejects at lines %v, records %q", stream, errs, recs)
	}
	pretty := "{\"Records\": [\n  {\"a\":1},\n  {\"b\":2}\n]}\n"
	recs, errs, stream = read(pretty)
	if !stream || len(errs) != 0 || len(recs) != 1 || recs[0] != strings.TrimSpace(pretty) {
		t.Errorf("a pretty-printed object: stream %v, rejects at lines %v, records %q", stream, errs, recs)
	}
}

// A UTF-8 byte order mark (Windows tools write one) is read past: the
// file gives every event it gives without one, and rejects nothing; its
// first record, often a session record, is not lost. A UTF-16 file is
// refused with what to do.
func TestByteOrderMark(t *testing.T) {
	for _, path := range []string{"testdata/ledger/all-types.jsonl", sample("squid", "logstash-patterns-core_squid_spec_lines.log")} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		whole := ingestData(t, path, data)
		got := ingestData(t, path, append([]byte{0xEF, 0xBB, 0xBF}, data...))
		if got.res.Format != whole.res.Format || got.res.Events != whole.res.Events || len(got.rejects) != len(whole.rejects) || got.res.ResumedAt != 0 {
			t.Errorf("%s with a byte order mark: %q, %d events, %d rejects (resumed at %d); without: %q, %d, %d", path,
				got.res.Format, got.res.Events, len(got.rejects), got.res.ResumedAt, whole.res.Format, whole.res.Events, len(whole.rejects))
		}
	}
	f := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(f, []byte{0xFF, 0xFE, '{', 0, '}', 0, '\n', 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), []string{f}, Options{Store: evidence.NewMemStore(), Rejects: &memRejects{}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err == nil || !strings.Contains(res[0].Err.Error(), "UTF-16") || !strings.Contains(res[0].Err.Error(), "iconv") {
		t.Errorf("a UTF-16 file: %v", res[0].Err)
	}
}

// A gzip file cut short (a copy or upload interrupted, a log being
// compressed when its sandbox was killed) gives the records before its
// end, and says the rest is missing. Before, a small one was not read at
// all: sniffing took the cut for an error of its own.
func TestGzipCutShort(t *testing.T) {
	data, err := os.ReadFile("testdata/ledger/all-types.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for len(data) < 64<<10 { // past the deflate blocks a short cut would end in
		data = append(data, data...)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	cut := gz.Bytes()[:gz.Len()*2/3]
	// what the cut stream still holds, to its last whole line
	zr, err := gzip.NewReader(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	held, _ := io.ReadAll(zr)
	lines := bytes.Count(held, []byte("\n"))
	if lines == 0 || lines == bytes.Count(data, []byte("\n")) {
		t.Fatalf("the cut stream holds %d lines: the test proves nothing", lines)
	}
	f := filepath.Join(t.TempDir(), "ledger.jsonl.gz")
	if err := os.WriteFile(f, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	st := evidence.NewMemStore()
	res, err := Run(context.Background(), []string{f}, Options{Store: st, Rejects: &memRejects{}})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if r.Err == nil || !strings.Contains(r.Err.Error(), "cut short") {
		t.Errorf("a gzip stream cut short: %v", r.Err)
	}
	if r.Format != "cordon-ledger" || r.Events+r.Rejects < lines || st.Counts().Total != int64(r.Events) {
		t.Errorf("read as %q: %d events and %d rejects of the %d whole lines the cut stream holds, %d stored", r.Format, r.Events, r.Rejects, lines, st.Counts().Total)
	}
}
