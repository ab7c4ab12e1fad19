package ingest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
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

// peakHeap samples the heap until stop is called, and returns the
// highest live heap (as of each collection: what the ingest holds) and
// the highest heap in use (garbage not yet collected included: what the
// process asks the system for) seen.
func peakHeap() (stop func() (live, inuse uint64)) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var live, inuse uint64
	wg.Add(1)
	go func() {
		defer wg.Done()
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			metrics.Read(sample)
			live = max(live, sample[0].Value.Uint64())
			inuse = max(inuse, m.HeapInuse)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		wg.Wait()
		return live, inuse
	}
}

// The bounds docs/security.md states for an ingest of records up to
// parse.MaxRecord; they depend on the size of a record, not on how many
// there are. Measured: 160-190 MiB live for the padding, 270-390 MiB for
// the noise, whose stored copies do not compress; the ingest's soft
// memory limit then holds the heap in use near 400 MiB, more when the
// collector lags on a busy machine.
const (
	maxIngestLive  = 512 << 20
	maxIngestInuse = 1 << 30
)

// randomURLLog streams n Squid lines whose URLs are each about size bytes
// of hex noise: nothing compresses them, in the file or in the index.
type randomURLLog struct {
	n, size, i int
	rng        *rand.Rand
	buf        bytes.Buffer
}

func (r *randomURLLog) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		if r.i == r.n {
			return 0, io.EOF
		}
		noise := make([]byte, r.size/2)
		for i := 0; i+8 <= len(noise); i += 8 {
			binary.LittleEndian.PutUint64(noise[i:], r.rng.Uint64())
		}
		fmt.Fprintf(&r.buf, "1525334330.%03d      3 10.0.3.7 TCP_MISS/200 2014 GET http://exfil.example/%d/%s public-user DIRECT/exfil.example text/plain\n", r.i, r.i, hex.EncodeToString(noise))
		r.i++
	}
	return r.buf.Read(p)
}

// Regression: 60 Squid lines with a 7 MiB URL each (about 1 MB gzipped)
// peaked at 4.9 GB. Batches end at DefaultBatchBytes as well as at a count,
// the index keeps only the first MaxIndexed bytes of a field (the stored
// event keeps the whole URL and says it was cut), the writer waits for the
// disk past maxUnstored, and zap no longer reserves room for a hundred
// more documents of the size of the last ones: incompressible URLs had
// held 3.1 GB with the rest in place.
func TestHugeURLsIngestInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests 840 MB of URLs")
	}
	const n, size = 60, 7 << 20
	path := filepath.Join(t.TempDir(), "access.log.gz")
	hugeURLLog(t, path, n, size)
	for _, c := range []struct {
		name  string
		input string
		stdin io.Reader
	}{
		{"padding, gzipped", path, nil},
		{"noise", "-", &randomURLLog{n: n, size: size, rng: rand.New(rand.NewPCG(1, 2))}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := newStore(t)
			runtime.GC()
			stop := peakHeap()
			res, err := Run(context.Background(), []string{c.input}, Options{Store: st, Format: "squid", Stdin: c.stdin})
			live, inuse := stop()
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d lines of %d MiB: peak live heap %d MiB, peak heap in use %d MiB", n, size>>20, live>>20, inuse>>20)
			if live > maxIngestLive || inuse > maxIngestInuse {
				t.Errorf("peak live heap %d MiB, heap in use %d MiB: over the bounds of %d and %d MiB", live>>20, inuse>>20, maxIngestLive>>20, maxIngestInuse>>20)
			}
			if r := res[0]; r.Events != n || r.Stored != n || r.Rejects != 0 {
				t.Fatalf("%+v", r)
			}
			if c := st.Counts(); c.Cut != n {
				t.Errorf("%d events say a field was cut, want %d", c.Cut, n)
			}
			h, err := st.Search(context.Background(), evidence.Request{Query: evidence.MustParse("+url:exfil.example +cut:url"), Limit: 1})
			if err != nil || h.Total != n {
				t.Fatalf("%v %v", h, err)
			}
			ev := h.Events[0]
			if len(ev.URL) < size || !strings.HasPrefix(ev.URL, "http://exfil.example/") || !slices.Equal(ev.Cut, []string{"url"}) {
				t.Errorf("stored event: %d bytes of URL, cut %v; want the whole URL, cut [url]", len(ev.URL), ev.Cut)
			}
		})
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
