package inspect_test

import (
	"archive/zip"
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/inspect"
	"github.com/cordon-ir/cordon/ingest/parse"
)

var (
	inspectMB    = flag.Int("inspect.mb", 50, "size in MB of the generated log of TestInspectLargeLogBoundedMemory")
	inspectTurns = flag.Int("inspect.turns", 60, "model and tool calls per sample of that log")
)

func zipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeLargeLog writes a pretty-printed eval log of about mb megabytes, in
// the shape real agent logs take: each model call resends the growing
// conversation, tools return pages of output.
func writeLargeLog(t *testing.T, path string, mb int) (samples, events int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	cw := &countWriter{w: bufio.NewWriterSize(f, 1<<20)}
	limit := int64(mb) << 20
	fmt.Fprint(cw, `{
  "version": 2,
  "status": "success",
  "eval": {"eval_id": "big", "run_id": "big-run", "created": "2026-07-21T10:00:00+00:00", "task": "big", "task_id": "t", "model": "openai/gpt-4o"},
  "stats": {"started_at": "2026-07-21T10:00:00+00:00"},
  "samples": [`)
	page := strings.Repeat("line of tool output with some words in it\n", 60) // ~2.5 KB
	for s := 0; cw.n < limit; s++ {
		if s > 0 {
			fmt.Fprint(cw, ",")
		}
		fmt.Fprintf(cw, "\n    {\n      \"id\": %d,\n      \"epoch\": 1,\n      \"input\": \"task %d\",\n      \"events\": [", s, s)
		convo := ""
		for e := 0; e < *inspectTurns && cw.n < limit; e++ {
			if e > 0 {
				fmt.Fprint(cw, ",")
			}
			ts := fmt.Sprintf("2026-07-21T10:%02d:%02d.%03d+00:00", s%60, e%60, s%1000)
			if e < 60 {
				convo += fmt.Sprintf(`{"role": "tool", "content": %q},`, page[:400])
			}
			fmt.Fprintf(cw, "\n        {\"event\": \"model\", \"timestamp\": %q, \"model\": \"openai/gpt-4o\", \"input\": [%s{\"role\": \"user\", \"content\": \"go\"}], \"output\": {\"model\": \"gpt-4o-2024-08-06\", \"usage\": {\"input_tokens\": %d, \"output_tokens\": 20}}},", ts, convo, 100*e)
			fmt.Fprintf(cw, "\n        {\"event\": \"tool\", \"timestamp\": %q, \"id\": \"c%d-%d\", \"function\": \"bash\", \"arguments\": {\"cmd\": \"cat /var/log/syslog | head -n %d\"}, \"result\": %q}", ts, s, e, e, page)
			events += 3
		}
		fmt.Fprintf(cw, "\n      ],\n      \"uuid\": \"u-%d\",\n      \"attachments\": {}\n    }", s)
		samples++
		events += 2
	}
	fmt.Fprint(cw, "\n  ]\n}\n")
	if err := cw.w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return samples, events
}

type countWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// heapSink counts events and keeps the highest live heap seen.
type heapSink struct {
	events, rejects int
	peak            uint64
}

func (h *heapSink) Event(ev evidence.Event) error {
	h.events++
	if h.events%2000 == 0 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.peak = max(h.peak, m.HeapAlloc)
	}
	return nil
}

func (h *heapSink) Reject(r parse.Reject) error { h.rejects++; return nil }

// A log of hundreds of megabytes streams: the heap stays far below the
// file's size. 50 MB here; measured at 200 MB by hand with -inspect.mb=200
// (docs/formats.md has the figure).
func TestInspectLargeLogBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 50 MB log")
	}
	path := filepath.Join(t.TempDir(), "big.json")
	samples, events := writeLargeLog(t, path, *inspectMB)
	info, _ := os.Stat(path)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	runtime.GC()
	h := &heapSink{}
	pos, err := ingest.Stream(f, "big.json", inspect.New(inspect.Options{}), ingest.Position{}, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	if h.events != events || h.rejects != 0 || pos.Offset != info.Size() {
		t.Errorf("%d events, %d rejects, offset %d; want %d events of %d samples, offset %d", h.events, h.rejects, pos.Offset, events, samples, info.Size())
	}
	t.Logf("%d MB log, %d samples, %d events: peak heap %d MB", info.Size()>>20, samples, h.events, h.peak>>20)
	if h.peak > 150<<20 {
		t.Errorf("peak heap %d MB while streaming a %d MB log", h.peak>>20, info.Size()>>20)
	}
}
