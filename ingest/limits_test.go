package ingest

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// hugeURLLog writes n Squid lines whose URLs are each about size bytes,
// gzipped (they compress to almost nothing, as padding does).
func hugeURLLog(t *testing.T, path string, n, size int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	w := bufio.NewWriterSize(zw, 1<<20)
	chunk := "AAAAB3NzaC1yc2EAAAADAQABAAABAQC7/"
	pad := strings.Repeat(chunk, size/len(chunk))
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "1525334330.%03d      3 10.0.3.7 TCP_MISS/200 2014 GET http://exfil.example/%d/%s public-user DIRECT/exfil.example text/plain\n", i, i, pad)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	f.Close()
}

// peakHeap samples the heap in use until stop is called, and returns the
// highest value seen.
func peakHeap() (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// maxIngestHeap is the bound docs/security.md states for an ingest of
// records up to parse.MaxRecord: it depends on the size of a record, not on how
// many there are.
const maxIngestHeap = 512 << 20

// Regression: 60 Squid lines with a 7 MiB URL each (about 1 MB gzipped)
// peaked at 4.9 GB. Batches end at DefaultBatchBytes as well as at a count,
// and the index keeps only the first MaxIndexed bytes of a field; the
// stored event keeps the whole URL and says it was cut.
func TestHugeURLsIngestInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 420 MB of URLs")
	}
	path := filepath.Join(t.TempDir(), "access.log.gz")
	const n, size = 60, 7 << 20
	hugeURLLog(t, path, n, size)
	st := newStore(t)
	runtime.GC()
	stop := peakHeap()
	res, err := Run(context.Background(), []string{path}, Options{Store: st, Format: "squid"})
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d lines of %d MiB: peak heap in use %d MiB", n, size>>20, peak>>20)
	if peak > maxIngestHeap {
		t.Errorf("peak heap in use %d MiB, over the %d MiB bound", peak>>20, maxIngestHeap>>20)
	}
	if r := res[0]; r.Events != n || r.Stored != n || r.Rejects != 0 {
		t.Fatalf("%+v", r)
	}
	if c := st.Counts(); c.Cut != n {
		t.Errorf("%d events say a field was cut, want %d", c.Cut, n)
	}
	h, err := st.Search(context.Background(), evidence.Request{Query: "+url:exfil.example +cut:url", Limit: 1})
	if err != nil || h.Total != n {
		t.Fatalf("%v %v", h, err)
	}
	ev := h.Events[0]
	if len(ev.URL) < size || !strings.HasPrefix(ev.URL, "http://exfil.example/") || !slices.Equal(ev.Cut, []string{"url"}) {
		t.Errorf("stored event: %d bytes of URL, cut %v; want the whole URL, cut [url]", len(ev.URL), ev.Cut)
	}
}

// A record over parse.MaxRecord is rejected by file, line and offset with its
// length; rejects.jsonl gets its first parse.MaxRejectData bytes, not the record.
func TestOverlongRecordIsRejectedWithoutItsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	long := `{"v":1,"ts":"2026-07-21T10:00:01Z","type":"note","text":"` + strings.Repeat("x", parse.MaxRecord+1<<20) + `"}`
	data := ledgerLine(0) + "\n" + long + "\n" + ledgerLine(2) + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rej := &memRejects{}
	res := ingestOnce(t, newStore(t), rej, path)
	if res[0].Events != 2 || len(rej.rs) != 1 {
		t.Fatalf("%+v, %d rejects", res[0], len(rej.rs))
	}
	r := rej.rs[0]
	if r.Origin != path+":2" || r.Offset != int64(len(ledgerLine(0))+1) || r.Len != len(long)+1 {
		t.Errorf("reject at %s offset %d, %d bytes; want %s:2 offset %d, %d bytes", r.Origin, r.Offset, r.Len, path, len(ledgerLine(0))+1, len(long)+1)
	}
	if len(r.Data) > parse.MaxRejectData+len("…") || !strings.HasPrefix(long, strings.TrimSuffix(r.Data, "…")) {
		t.Errorf("reject keeps %d bytes of the record", len(r.Data))
	}
	if !strings.Contains(r.Reason, "longer than") {
		t.Errorf("reason %q", r.Reason)
	}
}
