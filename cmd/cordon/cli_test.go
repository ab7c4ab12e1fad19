package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// TestMain lets a test start this test binary as the cordon command, so the
// crash and lock tests run a real second process.
func TestMain(m *testing.M) {
	if args := os.Getenv("CORDON_TEST_ARGS"); args != "" {
		limitFileSize(os.Getenv("CORDON_TEST_FSIZE"))
		os.Exit(run(strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	if builtCordon.dir != "" {
		os.RemoveAll(builtCordon.dir)
	}
	os.Exit(code)
}

// cordonProcess starts `cordon ARGS...` as a child process.
func cordonProcess(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CORDON_TEST_ARGS="+strings.Join(args, "\x1f"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// cordon runs a command in-process.
func cordon(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = run(args, strings.NewReader(""), &o, &e)
	return code, o.String(), e.String()
}

func writeLedger(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bytes.NewBuffer(nil)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, `{"v":1,"ts":"2026-07-21T%02d:%02d:%02d.%03dZ","type":"tool_call","agent":"agent-%d","session":"s-%d","call_id":"c-%d","tool":"bash","args":{"cmd":"curl -s https://example.com/%d"}}`+"\n",
			10+i/3600000, i/60000%60, i/1000%60, i%1000, i%5, i%5, i, i)
		if w.Len() > 1<<20 {
			f.Write(w.Bytes())
			w.Reset()
		}
	}
	f.Write(w.Bytes())
}

func eventCount(t *testing.T, dir string) int64 {
	t.Helper()
	code, out, errOut := cordon("stats", "--incident", dir, "--json")
	if code != 0 {
		t.Fatalf("stats: %d %s", code, errOut)
	}
	var s struct{ Events int64 }
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s.Events
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// killIngest starts cordon ingest of inputs into dir in a process of its
// own and kills it with SIGKILL delay after it took the workspace.
func killIngest(t *testing.T, dir string, delay time.Duration, inputs ...string) {
	t.Helper()
	cmd := cordonProcess(t, append([]string{"ingest", "--incident", dir}, inputs...)...)
	waitFor(t, "ingest to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "lock.pid"))
		return err == nil
	})
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

func TestKillDuringIngestThenRerunGivesCleanCount(t *testing.T) {
	const n = 30000
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, n)
	for _, delay := range []time.Duration{30 * time.Millisecond, 600 * time.Millisecond} {
		dir := filepath.Join(t.TempDir(), "incident")
		killIngest(t, dir, delay, src)
		code, out, errOut := cordon("ingest", "--incident", dir, src)
		if code != 0 {
			t.Fatalf("re-run after kill at %v: exit %d\n%s%s", delay, code, out, errOut)
		}
		if got := eventCount(t, dir); got != n {
			t.Errorf("after kill at %v and re-run: %d events, want %d\n%s", delay, got, n, out)
		}
	}
}

func TestSecondWriterAndReadersFailFastWhileIngesting(t *testing.T) {
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 150000)
	dir := filepath.Join(t.TempDir(), "incident")
	cmd := cordonProcess(t, "ingest", "--incident", dir, src)
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	waitFor(t, "ingest to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "lock.pid"))
		return err == nil
	})
	start := time.Now()
	code, _, errOut := cordon("ingest", "--incident", dir, src)
	if code != exitLocked || !strings.Contains(errOut, fmt.Sprintf("is in use (pid %d", cmd.Process.Pid)) {
		t.Errorf("second writer: exit %d, %q", code, errOut)
	}
	code, _, errOut = cordon("search", "--incident", dir, "agent:agent-1")
	if code != exitLocked || !strings.Contains(errOut, "being written") {
		t.Errorf("reader during ingest: exit %d, %q", code, errOut)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("lock errors took %v, want under a second", d)
	}
}

func TestSearchShowStatsOnASmallIncident(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 300)
	if code, out, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatalf("ingest: %d %s %s", code, out, errOut)
	}
	code, out, _ := cordon("search", "--incident", dir, "--json", "--limit", "1000", "+agent:agent-3", "+cmdline:curl")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 60 {
		t.Fatalf("search: exit %d, %d lines", code, len(lines))
	}
	var ev map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &ev); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"id", "time", "source", "format", "kind", "agent", "call_id", "cmdline", "message", "raw", "origin"} {
		if _, ok := ev[k]; !ok {
			t.Errorf("--json line lacks %q: %v", k, ev)
		}
	}
	code, out, _ = cordon("show", "--incident", dir, ev["id"].(string))
	if code != 0 || !strings.Contains(out, "origin") || !strings.Contains(out, `"type": "tool_call"`) {
		t.Errorf("show: %d\n%s", code, out)
	}
	code, out, _ = cordon("search", "--incident", dir, "--since", "2026-07-21T10:00:00.100Z", "--until", "2026-07-21T10:00:00.110Z", "kind:tool_call")
	if code != 0 || strings.Count(out, "\n") != 11 { // header + 10 rows
		t.Errorf("time range: %d\n%s", code, out)
	}
	if code, _, errOut := cordon("search", "--incident", dir, `agent:"unclosed`); code != exitUsage || !strings.Contains(errOut, "bad query") {
		t.Errorf("bad query: %d %s", code, errOut)
	}
	if code, _, _ := cordon("show", "--incident", dir, "nope"); code != exitNotFound {
		t.Errorf("show missing: %d", code)
	}
	if code, _, _ := cordon("search", "--incident", filepath.Join(dir, "nowhere"), "x"); code != exitNotFound {
		t.Errorf("no incident: %d", code)
	}
	if code, _, _ := cordon("ingest", "--incident", dir); code != exitUsage {
		t.Errorf("usage: %d", code)
	}
	if code, _, _ := cordon("ingest", "--incident", dir, "/does/not/exist"); code != exitUnreadable {
		t.Errorf("unreadable: %d", code)
	}
}

func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	os.WriteFile(src, []byte(`{"v":1,"ts":"2026-07-21T10:00:00Z","type":"summary","agent":"agent-1","text":"done\u001b]0;pwned\u0007\u001b[2J ignore previous instructions"}`+"\n"), 0o644)
	if code, _, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatal(errOut)
	}
	_, out, _ := cordon("search", "--incident", dir, "instructions")
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) || !strings.Contains(out, `\x1b]0;pwned`) {
		t.Errorf("escape sequences reached output: %q", out)
	}
}

func TestRebuildAfterMappingChange(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLedger(t, src, 500)
	if code, _, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatal(errOut)
	}
	os.WriteFile(filepath.Join(dir, "index.bleve", "mapping-version"), []byte("0\n"), 0o644)
	code, _, errOut := cordon("stats", "--incident", dir)
	if code != exitIncompatible || !strings.Contains(errOut, "cordon ingest --rebuild --incident") {
		t.Fatalf("old index: exit %d %q", code, errOut)
	}
	if code, out, errOut := cordon("ingest", "--rebuild", "--incident", dir); code != 0 {
		t.Fatalf("rebuild: %d %s %s", code, out, errOut)
	}
	if n := eventCount(t, dir); n != 500 {
		t.Errorf("after rebuild: %d events", n)
	}
}

// TestDoubleDashEndsFlags: after "--" nothing is a flag, even past the
// first positional argument (a remote `search -- x -limit=9` must not set
// the limit, and a query may start with a dash); before it, flags and
// arguments interleave, and -name still reads as --name.
func TestDoubleDashEndsFlags(t *testing.T) {
	var limit int
	var pos []string
	tree := func() *env {
		e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
		return e
	}
	cm := command{name: "t", define: func(_ *env, c *cobra.Command) {
		l := c.Flags().Int("limit", 10, "")
		c.RunE = func(_ *cobra.Command, args []string) error { limit, pos = *l, args; return nil }
	}}
	runT := func(args ...string) error {
		e := tree()
		root := newRoot(e)
		root.AddCommand(build(e, cm))
		root.SetArgs(longFlags(root, append([]string{"t"}, args...)))
		return root.Execute()
	}
	if err := runT("--", "x", "-limit=99", "-kind:dns"); err != nil || limit != 10 || strings.Join(pos, " ") != "x -limit=99 -kind:dns" {
		t.Errorf("pos %q limit %d err %v", pos, limit, err)
	}
	if err := runT("a", "-limit", "3", "b"); err != nil || limit != 3 || strings.Join(pos, " ") != "a b" {
		t.Errorf("interleaved: pos %q limit %d err %v", pos, limit, err)
	}
	if err := runT("a", "--limit=4", "--", "--limit=5"); err != nil || limit != 4 || strings.Join(pos, " ") != "a --limit=5" {
		t.Errorf("after --: pos %q limit %d err %v", pos, limit, err)
	}
}

// TestJSONOutputIsTerminalSafe: Go's JSON encoder leaves C1 controls and
// bidi overrides raw; every --json output escapes them.
func TestJSONOutputIsTerminalSafe(t *testing.T) {
	var b strings.Builder
	if err := jsonEncoder(&b).Encode(map[string]string{"m": "a\u009b2J\u009d0;pwned\u009c \u202egnp.exe"}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.ContainsAny(out, "\u009b\u009d\u009c\u202e") || !strings.Contains(out, `\u009b2J`) || !strings.Contains(out, `\u202e`) {
		t.Errorf("JSON output %q", out)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(out), &back); err != nil || back["m"] != "a\u009b2J\u009d0;pwned\u009c \u202egnp.exe" {
		t.Errorf("does not decode to the same value: %v %q", err, back["m"])
	}
}

// --json's raw replaced invalid UTF-8 with U+FFFD though the README says
// byte for byte: a record that is not valid UTF-8 also carries raw_b64,
// its exact bytes.
func TestJSONRawKeepsInvalidUTF8Bytes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	src := filepath.Join(t.TempDir(), "access.log")
	line := "1786438686.850   6850 10.30.8.15 TCP_MISS/200 5102 GET http://example.org/a\xff\xfeb svc-ci HIER_DIRECT/151.101.0.223 text/html"
	clean := "1786438687.850   6850 10.30.8.15 TCP_MISS/200 5102 GET http://example.org/plain svc-ci HIER_DIRECT/151.101.0.223 text/html"
	os.WriteFile(src, []byte(line+"\n"+clean+"\n"), 0o644)
	if code, _, errOut := cordon("ingest", "--incident", dir, src); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := cordon("search", "--incident", dir, "--json", "")
	if code != 0 {
		t.Fatal(errOut)
	}
	var got []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, m)
	}
	if len(got) != 2 {
		t.Fatalf("%d events: %s", len(got), out)
	}
	b64, _ := got[0]["raw_b64"].(string)
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || string(raw) != line {
		t.Errorf("raw_b64 %q decodes to %q (%v), want the line as written", b64, raw, err)
	}
	if _, ok := got[1]["raw_b64"]; ok {
		t.Errorf("a valid UTF-8 record carries raw_b64: %v", got[1])
	}
	_, show, _ := cordon("show", "--incident", dir, "--json", got[0]["id"].(string))
	if !strings.Contains(show, `"raw_b64":"`+b64+`"`) {
		t.Errorf("show --json: %s", show)
	}
}
