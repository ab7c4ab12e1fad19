package ingest

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

type memRejects struct{ rs []parse.Reject }

func (m *memRejects) Add(rs []parse.Reject) error { m.rs = append(m.rs, rs...); return nil }

func newStore(t *testing.T) evidence.Store {
	t.Helper()
	st, err := evidence.Open(filepath.Join(t.TempDir(), "index.bleve"), evidence.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func ledgerLine(i int) string {
	return fmt.Sprintf(`{"v":1,"ts":"2026-07-21T10:%02d:%02d.%03dZ","type":"tool_call","agent":"agent-%d","call_id":"c-%d","tool":"bash","args":{"cmd":"echo %d"}}`,
		i/3600%60, i/60%60, i%1000, i%4, i, i)
}

func writeLines(t *testing.T, path string, from, to int, extra ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := from; i < to; i++ {
		fmt.Fprintln(f, ledgerLine(i))
	}
	for _, e := range extra {
		fmt.Fprint(f, e)
	}
}

func ingestOnce(t *testing.T, st evidence.Store, rej RejectLog, files ...string) []FileResult {
	t.Helper()
	res, err := Run(context.Background(), files, Options{Store: st, Rejects: rej, BatchSize: 64})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Err != nil {
			t.Fatalf("%s: %v", r.Path, r.Err)
		}
	}
	return res
}

func TestReingestIsIdempotent(t *testing.T) {
	st := newStore(t)
	dir := t.TempDir()
	a := filepath.Join(dir, "ledger.jsonl")
	writeLines(t, a, 0, 500)
	ingestOnce(t, st, nil, a)
	// A copy under another name has the same records at the same offsets.
	b := filepath.Join(dir, "copy.jsonl")
	data, _ := os.ReadFile(a)
	os.WriteFile(b, data, 0o644)
	res := ingestOnce(t, st, nil, a, b)
	if res[0].Events != 0 || res[1].Events != 500 || res[1].New != 0 {
		t.Errorf("second run: %+v", res)
	}
	if n := st.Counts().Total; n != 500 {
		t.Errorf("total %d after re-ingest, want 500", n)
	}
}

func TestGrowingFileResumes(t *testing.T) {
	st := newStore(t)
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, path, 0, 100, `{"v":1,"ts":"2026-07-21T11:00:00Z","type":"tool_c`) // a line being written
	res := ingestOnce(t, st, nil, path)
	if res[0].Events != 100 || res[0].Rejects != 0 {
		t.Fatalf("first run: %+v (a partial last line must wait, not be rejected)", res[0])
	}
	// The writer finishes the line and appends more.
	writeLines(t, path, 0, 0, `all","agent":"agent-1","tool":"bash"}`+"\n")
	writeLines(t, path, 100, 150)
	res = ingestOnce(t, st, nil, path)
	if res[0].ResumedAt == 0 || res[0].Events != 51 || res[0].New != 51 {
		t.Fatalf("resume: %+v", res[0])
	}
	if n := st.Counts().Total; n != 151 {
		t.Errorf("total %d, want 151", n)
	}
}

func TestRotatedFileIsReadFromTheTop(t *testing.T) {
	st := newStore(t)
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, path, 0, 50)
	ingestOnce(t, st, nil, path)
	os.Remove(path)
	writeLines(t, path, 1000, 1020) // new content, shorter than the checkpoint
	res := ingestOnce(t, st, nil, path)
	if res[0].ResumedAt != 0 || res[0].New != 20 {
		t.Errorf("rotated: %+v", res[0])
	}
}

func TestRejectsKeepLineAndReason(t *testing.T) {
	st := newStore(t)
	rej := &memRejects{}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, path, 0, 3, "{not json}\n", "\n", `{"v":1,"ts":"2026-07-21T10:00:00Z","type":"prompt"}`+"\n")
	writeLines(t, path, 3, 5)
	res := ingestOnce(t, st, rej, path)
	if res[0].Events != 5 || res[0].Rejects != 2 || len(rej.rs) != 2 {
		t.Fatalf("%+v rejects %+v", res[0], rej.rs)
	}
	if rej.rs[0].Origin != path+":4" || !strings.Contains(rej.rs[0].Reason, "not a ledger record") || rej.rs[0].Data != "{not json}" {
		t.Errorf("reject 0: %+v", rej.rs[0])
	}
	if rej.rs[1].Origin != path+":6" || !strings.Contains(rej.rs[1].Reason, "no agent") {
		t.Errorf("reject 1: %+v", rej.rs[1])
	}
}

func TestGzipAndStdin(t *testing.T) {
	st := newStore(t)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	for i := 0; i < 40; i++ {
		fmt.Fprintln(zw, ledgerLine(i))
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "ledger.jsonl.gz")
	os.WriteFile(path, buf.Bytes(), 0o644)
	res := ingestOnce(t, st, nil, path)
	if res[0].Events != 40 || res[0].Format != "cordon-ledger" {
		t.Fatalf("gzip: %+v", res[0])
	}
	var in bytes.Buffer
	for i := 40; i < 60; i++ {
		fmt.Fprintln(&in, ledgerLine(i))
	}
	res, err := Run(context.Background(), []string{"-"}, Options{Store: st, Stdin: &in})
	if err != nil || res[0].Events != 20 {
		t.Fatalf("stdin: %+v %v", res, err)
	}
	if n := st.Counts().Total; n != 60 {
		t.Errorf("total %d", n)
	}
}

func TestHugeLineIsRejectedNotFatal(t *testing.T) {
	st := newStore(t)
	rej := &memRejects{}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	huge := `{"v":1,"ts":"2026-07-21T10:00:00Z","type":"summary","agent":"a","text":"` + strings.Repeat("A", parse.MaxRecord+10) + "\"}\n"
	writeLines(t, path, 0, 2, huge)
	writeLines(t, path, 2, 4)
	res := ingestOnce(t, st, rej, path)
	if res[0].Events != 4 || len(rej.rs) != 1 || !strings.Contains(rej.rs[0].Reason, "longer than") {
		t.Fatalf("%+v %v", res[0], rej.rs)
	}
}

func TestPrettyAndArrayJSON(t *testing.T) {
	st := newStore(t)
	dir := t.TempDir()
	pretty := filepath.Join(dir, "pretty.json")
	os.WriteFile(pretty, []byte("{\n  \"v\": 1,\n  \"ts\": \"2026-07-21T10:00:00Z\",\n  \"type\": \"summary\",\n  \"agent\": \"a\",\n  \"text\": \"brace } in \\\" string {\"\n}\n"), 0o644)
	array := filepath.Join(dir, "array.json")
	os.WriteFile(array, []byte("[\n"+ledgerLine(1)+",\n"+ledgerLine(2)+"\n]\n"), 0o644)
	res := ingestOnce(t, st, nil, pretty, array)
	if res[0].Events != 1 || res[1].Events != 2 {
		t.Fatalf("%+v", res)
	}
	res = ingestOnce(t, st, nil, pretty, array)
	if res[0].Events != 0 || res[1].Events != 0 {
		t.Errorf("unchanged pretty/array files re-read: %+v", res)
	}
}

// Regression: an unchanged pretty-printed file re-read once must still be
// read from the top when it later grows, not resumed mid-array.
func TestPrettyFileStaysStreamingAcrossRuns(t *testing.T) {
	st := newStore(t)
	path := filepath.Join(t.TempDir(), "array.json")
	array := func(n int) []byte {
		var b strings.Builder
		b.WriteString("[\n")
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(ledgerLine(i))
		}
		b.WriteString("\n]\n")
		return []byte(b.String())
	}
	os.WriteFile(path, array(30), 0o644) // longer than the checkpoint's head
	ingestOnce(t, st, nil, path)
	ingestOnce(t, st, nil, path) // unchanged: reads nothing
	os.WriteFile(path, array(31), 0o644)
	res := ingestOnce(t, st, nil, path)
	if res[0].ResumedAt != 0 || res[0].New != 1 || res[0].Rejects != 0 {
		t.Errorf("grown array file: %+v", res[0])
	}
}

// TestExpandRefusesSpecialFiles: a FIFO or a device named as an input is
// refused, naming it; one inside a folder is passed over; a link to a
// regular file is an input like the file.
func TestExpandRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.log")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs: %v", err)
	}
	for in, what := range map[string]string{fifo: "a named pipe (FIFO)", "/dev/null": "a character device"} {
		_, err := Expand([]string{in})
		if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), in+" is "+what) {
			t.Errorf("Expand(%s): %v", in, err)
		}
	}
	reg := filepath.Join(dir, "a.log")
	os.WriteFile(reg, []byte("x\n"), 0o600)
	link := filepath.Join(t.TempDir(), "link.log")
	os.Symlink(reg, link)
	got, err := Expand([]string{dir, link})
	if err != nil || strings.Join(got, " ") != reg+" "+link {
		t.Errorf("Expand(folder with a FIFO, link): %v %v", got, err)
	}
	if _, err := openRegular(fifo); !errors.Is(err, ErrUnreadable) {
		t.Errorf("openRegular(FIFO): %v, want a refusal without waiting", err)
	}
}

// TestExpandRefusesABrokenLink: a symbolic link whose file is gone is an
// error naming the link and where it points, whether named on its own or
// met in a folder, never passed over (issue 33). A link in a folder to a
// file elsewhere is read; one to a file the folder holds is read once.
func TestExpandRefusesABrokenLink(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.log")
	os.WriteFile(reg, []byte("x\n"), 0o600)
	broken := filepath.Join(dir, "proxy.log")
	if err := os.Symlink(filepath.Join(dir, "rotated", "proxy.log.1"), broken); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	for _, in := range []string{broken, dir} {
		_, err := Expand([]string{in})
		if !errors.Is(err, ErrUnreadable) || !strings.Contains(err.Error(), broken+" is a symbolic link to "+filepath.Join(dir, "rotated", "proxy.log.1")) {
			t.Errorf("Expand(%s): %v, want the broken link named", in, err)
		}
	}
	os.Remove(broken)
	outside := filepath.Join(t.TempDir(), "sensor.jsonl")
	os.WriteFile(outside, []byte("y\n"), 0o600)
	os.Symlink(outside, filepath.Join(dir, "sensor.jsonl"))
	os.Symlink(reg, filepath.Join(dir, "current.log"))
	got, err := Expand([]string{dir})
	if want := reg + " " + filepath.Join(dir, "sensor.jsonl"); err != nil || strings.Join(got, " ") != want {
		t.Errorf("Expand(folder with links) = %v %v, want %s", got, err, want)
	}
}
