package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// trailFile writes a CloudTrail Records file of n records, all at one
// second, about 170 bytes each: one JSON value of n events.
func trailFile(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"Records":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"eventVersion":"1.09","eventTime":"2026-10-14T10:00:00Z","eventSource":"s3.amazonaws.com","eventName":"GetObject","eventID":"e%d","sourceIPAddress":"203.0.113.9"}`, i)
	}
	b.WriteString(`]}`)
	p := filepath.Join(t.TempDir(), "trail.json")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Regression: one 8 MiB CloudTrail file of 50,000 records took 261 s and
// 720 MB — each event's id hashed the whole file, and all its events went
// to the index in one batch. A record of many events is written in
// batches like any others (the checkpoint before it until its last), its
// ids come from its digest, and a re-run adds nothing.
func TestARecordOfManyEventsIsBatched(t *testing.T) {
	const n = 20_000
	path := trailFile(t, n)
	st := newStore(t)
	runtime.GC()
	stop := peakHeap()
	res, err := Run(context.Background(), []string{path}, Options{Store: st, BatchSize: 2000})
	live, _ := stop()
	if err != nil {
		t.Fatal(err)
	}
	if r := res[0]; r.Events != n || r.New != n || r.Rejects != 0 {
		t.Fatalf("%+v", r)
	}
	t.Logf("%d records in one file: peak live heap %d MiB", n, live>>20)
	// a batch of 20,000 documents held about 160 MiB of them at once
	if live > 128<<20 {
		t.Errorf("peak live heap %d MiB for %d small records", live>>20, n)
	}
	if c := st.Counts(); c.Total != n {
		t.Errorf("%d events stored", c.Total)
	}
	again, err := Run(context.Background(), []string{path}, Options{Store: st, BatchSize: 2000})
	if err != nil || again[0].New != 0 || st.Counts().Total != n {
		t.Fatalf("re-run: %+v %v, %d stored", again, err, st.Counts().Total)
	}
}

// Ids from the digest are as distinct and as stable as ids from the
// bytes: each event of a large record has its own, the same on every read.
func TestLargeRecordIDsAreStable(t *testing.T) {
	data := []byte(strings.Repeat("x", idDigestOver+1))
	if got := idBytes(data, 2); string(got) == string(data) || string(got) != string(idBytes(data, 2)) {
		t.Errorf("a large record of two events: %d id bytes", len(got))
	}
	if got := idBytes(data, 1); string(got) != string(data) {
		t.Error("a record of one event changed its id")
	}
	small := []byte("small")
	if got := idBytes(small, 5); string(got) != "small" {
		t.Error("a small record changed its ids")
	}
}
