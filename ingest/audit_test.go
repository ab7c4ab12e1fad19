package ingest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// The audit logs' routine records are counted in the file's result, not
// lost: a Records file's runs of Describe calls and the API server's
// RequestReceived stages and probes. What was counted is not in the index;
// the calls that bound a run are.
func TestRoutineRecordsAreCountedNotIndexed(t *testing.T) {
	dir := filepath.Join("..", "sample-incidents", "cloud-key-after-kill", "audit")
	k8s := filepath.Join(dir, "k8s-audit.jsonl")
	trail, _ := filepath.Glob(filepath.Join(dir, "cloudtrail", "*T0945Z_*.json"))
	if len(trail) != 1 {
		t.Fatalf("cloudtrail file: %v", trail)
	}
	st := newStore(t)
	res := ingestOnce(t, st, &memRejects{}, k8s, trail[0])
	byPath := map[string]FileResult{}
	for _, r := range res {
		byPath[r.Path] = r
	}
	// 124 RequestReceived stages and 48 /readyz probes; 2 inventory sweeps
	// of 5 Describe calls, of which the first and last are kept
	if r := byPath[k8s]; r.Routine != 172 || r.Events != 137 || r.Stored != 137 {
		t.Errorf("k8s-audit: %d events, %d stored, %d routine; want 137, 137, 172", r.Events, r.Stored, r.Routine)
	}
	if r := byPath[trail[0]]; r.Routine != 8 || r.Events != 2 {
		t.Errorf("cloudtrail: %d events, %d routine; want 2 and 8", r.Events, r.Routine)
	}
	for _, word := range []string{"RequestReceived", "readyz"} {
		h, err := st.Search(context.Background(), evidence.Request{Query: evidence.Term("", word), Limit: 1})
		if err != nil || h.Total > 0 {
			t.Errorf("%s: %v, %d indexed", word, err, h.Total)
		}
	}
	h, err := st.Search(context.Background(), evidence.Request{Query: evidence.MustParse("+format:cloudtrail +tags:folded"), Limit: 10})
	if err != nil || h.Total != 2 {
		t.Errorf("folded run ends: %v %d, want the first and the last", err, h.Total)
	}
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
