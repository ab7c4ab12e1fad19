package ingest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// Nothing is left out of the index as routine: every CloudTrail call and
// every Kubernetes request is an event, the routine ones tagged routine
// (and counted in the file's result), and the stages of one request are
// one event. Before, a Records file's runs of Describe calls kept only
// their first and last call and the API server's probes were counted, not
// indexed, so that a later judgement could not see them.
func TestRoutineRecordsAreIndexedAndTagged(t *testing.T) {
	dir := filepath.Join("..", "sample-incidents", "cloud-key-after-kill", "audit")
	k8s := filepath.Join(dir, "k8s-audit.jsonl")
	trails, _ := filepath.Glob(filepath.Join(dir, "cloudtrail", "*.json"))
	if len(trails) != 24 {
		t.Fatalf("cloudtrail files: %v", trails)
	}
	st := newStore(t)
	res := ingestOnce(t, st, &memRejects{}, append([]string{k8s}, trails...)...)
	// 309 lines: 185 requests, 124 of them with a RequestReceived stage
	// before their ResponseComplete; 48 /readyz probes
	if r := res[0]; r.Events != 185 || r.Stored != 185 || r.New != 185 || r.Routine != 48 || r.Merged != 124 || r.Rejects != 0 {
		t.Errorf("k8s-audit: %d events (%d stored, %d new), %d routine, %d merged, %d rejects; want 185 (185, 185), 48, 124, 0",
			r.Events, r.Stored, r.New, r.Routine, r.Merged, r.Rejects)
	}
	// 183 records, 130 of them in 22 runs of inventory calls (before: 86
	// counted and left out, the 44 calls bounding the runs kept)
	events, routine := 0, 0
	for _, r := range res[1:] {
		events += r.Events
		routine += r.Routine
	}
	if records := trailRecords(t, trails); events != 183 || records != 183 || routine != 130 {
		t.Errorf("cloudtrail: %d events of %d records, %d routine; want 183 of 183, 130", events, records, routine)
	}
	for q, want := range map[string]uint64{
		"readyz":                           48,
		"+format:k8s-audit +tags:routine":  48,
		"+format:cloudtrail +tags:routine": 130,
		"format:cloudtrail":                183,
		"format:k8s-audit":                 185,
		"tags:folded":                      0,
	} {
		h, err := st.Search(context.Background(), evidence.Request{Query: evidence.MustParse(q), Limit: 1})
		if err != nil || h.Total != want {
			t.Errorf("%s: %v, %d events, want %d", q, err, h.Total, want)
		}
	}
}

// trailRecords counts the records of Records files.
func trailRecords(t *testing.T, files []string) int {
	t.Helper()
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var v struct{ Records []json.RawMessage }
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
		n += len(v.Records)
	}
	return n
}

// A Records file larger than the sniffing window is one JSON value the
// window cuts: it is recognized by its start, and parses whole.
func TestLargeRecordsFileIsSniffed(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"Records":[`)
	for i := 0; b.Len() < sniffWindow+64<<10; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"eventVersion":"1.09","eventTime":"2026-10-14T10:%02d:%02dZ","eventSource":"s3.amazonaws.com","eventName":"PutObject",`+
			`"sourceIPAddress":"198.51.100.23","userIdentity":{"accessKeyId":"AKIAEVAL611EXAMPLE01"},"requestParameters":{"bucketName":"b","key":"k-%d"}}`, i/60%60, i%60, i)
	}
	b.WriteString("]}")
	p, err := Sniff(bufio.NewReaderSize(strings.NewReader(b.String()), sniffWindow), Parsers())
	if err != nil || p.Format() != "cloudtrail" {
		t.Fatalf("sniffed %v, %v", p, err)
	}
	st := newStore(t)
	path := filepath.Join(t.TempDir(), "111122223333_CloudTrail_eu-west-1_20261014T1100Z_X.json")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res := ingestOnce(t, st, &memRejects{}, path)
	if res[0].Events < 1000 || res[0].Rejects != 0 || res[0].Format != "cloudtrail" {
		t.Errorf("%+v", res[0])
	}
}
