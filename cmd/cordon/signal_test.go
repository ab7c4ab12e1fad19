package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/incident"
	"github.com/cordon-ir/cordon/journal"
)

// writeSquid writes n lines of a Squid native access.log.
func writeSquid(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%d.%03d %5d 10.0.3.%d TCP_MISS/200 %d GET http://host%d.example.com/p/%d - HIER_DIRECT/93.184.216.%d text/html\n",
			1774290908+i/100, i%1000, 12+i%50, i%200, 100+i, i%70, i, i%250)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// waitExit waits up to limit for cmd to end, killing it after that.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) (code int, took time.Duration) {
	t.Helper()
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("still running %v later (killed): %s", limit, cmd.Stdout)
	}
	return cmd.ProcessState.ExitCode(), time.Since(start)
}

// lockFree fails the test unless a writer can take dir's lock now.
func lockFree(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return
	}
	l, err := journal.LockWorkspace(dir, true)
	if err != nil {
		t.Fatalf("the workspace lock is still held: %v", err)
	}
	l.Release()
}

// TestFIFOOnTheCommandLineIsRefusedAtOnce: a named pipe the agent left
// among the evidence blocked the ingest in open(2) for ever, deaf to
// SIGTERM, holding the workspace lock.
func TestFIFOOnTheCommandLineIsRefusedAtOnce(t *testing.T) {
	tmp := t.TempDir()
	fifo := filepath.Join(tmp, "access.log")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	dir := filepath.Join(tmp, "incident")
	cmd := cordonProcess(t, "ingest", "--incident", dir, fifo)
	code, took := waitExit(t, cmd, 10*time.Second)
	out := fmt.Sprint(cmd.Stdout)
	if code != exitUnreadable || !strings.Contains(out, fifo+" is a named pipe (FIFO), not a regular file") {
		t.Errorf("exit %d after %v, want %d naming the FIFO:\n%s", code, took, exitUnreadable, out)
	}
	lockFree(t, dir)

	// a link to a regular file is evidence like any other
	src := filepath.Join(tmp, "ledger.jsonl")
	writeLedger(t, src, 10)
	link := filepath.Join(tmp, "link.jsonl")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := cordon("ingest", "--incident", dir, link); code != 0 || !strings.Contains(out, "10 events") {
		t.Errorf("a symlink to a regular file: exit %d\n%s%s", code, out, errOut)
	}
}

// TestSIGTERMDuringIngestStopsAtABatchAndResumes: a SIGTERM ends a large
// ingest within seconds, exit 143, the lock released, its checkpoint at a
// batch it indexed; a re-run resumes there and ends with every line once.
func TestSIGTERMDuringIngestStopsAtABatchAndResumes(t *testing.T) {
	const n = 30000
	src := filepath.Join(t.TempDir(), "access.log")
	writeSquid(t, src, n)
	dir := filepath.Join(t.TempDir(), "incident")
	cmd := cordonProcess(t, "ingest", "--incident", dir, src)
	// a segment on disk: at least one batch, and its checkpoint, indexed
	waitFor(t, "a first batch", func() bool {
		zaps, _ := filepath.Glob(filepath.Join(dir, "index.bleve", "store", "*.zap"))
		return len(zaps) > 0
	})
	cmd.Process.Signal(syscall.SIGTERM)
	code, took := waitExit(t, cmd, 10*time.Second)
	out := fmt.Sprint(cmd.Stdout)
	if code == 0 && !strings.Contains(out, "interrupted") {
		t.Skipf("the ingest finished before the signal: %s", out)
	}
	if code != 128+int(syscall.SIGTERM) || !strings.Contains(out, "stopped by SIGTERM") || took > 5*time.Second {
		t.Fatalf("after SIGTERM: exit %d in %v, want 143 within seconds:\n%s", code, took, out)
	}
	lockFree(t, dir)
	if _, err := os.Stat(filepath.Join(dir, "lock.pid")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock.pid left behind: %v", err)
	}

	code, out, errOut := cordon("ingest", "--incident", dir, src)
	if code != 0 || !strings.Contains(out, "resumed at byte") {
		t.Fatalf("re-run: exit %d, want a resume\n%s%s", code, out, errOut)
	}
	if got := eventCount(t, dir); got != n {
		t.Errorf("after SIGTERM and a re-run: %d events, want %d\n%s", got, n, out)
	}
}

// TestSIGINTEndsAFollowingIngest: ctrl-c is how ingest --follow ends; it
// exits 130 with the lock released.
func TestSIGINTEndsAFollowingIngest(t *testing.T) {
	src := filepath.Join(t.TempDir(), "access.log")
	writeSquid(t, src, 100)
	dir := filepath.Join(t.TempDir(), "incident")
	cmd := cordonProcess(t, "ingest", "--follow", "--incident", dir, src)
	waitFor(t, "the first round", func() bool {
		_, err := os.Stat(filepath.Join(dir, "sources.json"))
		return err == nil
	})
	cmd.Process.Signal(syscall.SIGINT)
	if code, took := waitExit(t, cmd, 10*time.Second); code != 128+int(syscall.SIGINT) || took > 5*time.Second {
		t.Errorf("after SIGINT: exit %d in %v, want 130 within seconds:\n%s", code, took, cmd.Stdout)
	}
	lockFree(t, dir)
}

// TestSIGTERMEndsAnIngestOfStdinThatNeverCloses: a read of a pipe whose
// writer stays silent does not return by itself; the signal still ends
// the ingest.
func TestSIGTERMEndsAnIngestOfStdinThatNeverCloses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "incident")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CORDON_TEST_ARGS="+strings.Join([]string{"ingest", "--incident", dir, "-"}, "\x1f"))
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	line, _ := json.Marshal(map[string]any{"v": 1, "ts": "2026-07-21T10:00:00Z", "type": "tool_call", "agent": "agent-1", "tool": "bash"})
	w.Write(append(line, '\n'))
	waitFor(t, "ingest to start", func() bool {
		_, err := os.Stat(filepath.Join(dir, "lock.pid"))
		return err == nil
	})
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	if code, took := waitExit(t, cmd, 10*time.Second); code != 128+int(syscall.SIGTERM) {
		t.Errorf("after SIGTERM: exit %d in %v, want 143:\n%s", code, took, out.String())
	}
	lockFree(t, dir)
}

// TestFollowingIngestKeepsItsDetectors: ingest --follow says after each
// round what the detectors found; appended lines are added to the pass it
// keeps, not a pass over the incident.
func TestFollowingIngestKeepsItsDetectors(t *testing.T) {
	lines := strings.SplitAfter(readFile(t, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil", "ledger.jsonl")), "\n")
	half := len(lines) / 2
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	if err := os.WriteFile(src, []byte(strings.Join(lines[:half], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "incident")
	cmd := cordonProcess(t, "ingest", "--follow", "--incident", dir, src)
	rounds := func() int {
		return strings.Count(readFile(t, filepath.Join(dir, "journal.jsonl")), `"findings_changed"`)
	}
	waitFor(t, "the first round's findings", func() bool { return rounds() == 1 })
	f, err := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(strings.Join(lines[half:], ""))
	f.Close()
	waitFor(t, "the second round's findings", func() bool { return rounds() == 2 })
	// while it follows, another process reads what it keeps
	code, out, errOut := cordon("findings", "--incident", dir, "--json")
	if code != 0 || strings.Count(out, "\n") != 6 || !strings.Contains(errOut, "a following ingest holds the index") {
		t.Errorf("findings during the follow: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = cordon("findings", "--incident", dir, "--by", "agent", "--json")
	if code != 0 || !strings.Contains(out, `"agent":"agent-7"`) {
		t.Errorf("findings --by agent during the follow: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = cordon("verdict", "--incident", dir); code == exitLocked || !strings.Contains(errOut, "a following ingest holds the index") || out == "" {
		t.Errorf("verdict during the follow: exit %d\n%s%s", code, out, errOut)
	}
	// and reads the evidence through it: a search, a subject, the checks
	if code, out, errOut = cordon("search", "--incident", dir, "--json", "curl"); code != 0 || !strings.Contains(out, `"agent":"agent-7"`) ||
		!strings.Contains(errOut, "the evidence is read through it") {
		t.Errorf("search during the follow: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = cordon("subject", "--incident", dir, "--json"); code != 0 || !strings.Contains(out, `"agent-7"`) || !strings.Contains(out, `"session":["s-19"]`) {
		t.Errorf("subject during the follow: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut = cordon("check", "--incident", dir, "--json"); code == exitLocked || code == exitError || !strings.Contains(out, `"step"`) {
		t.Errorf("check during the follow: exit %d\n%s%s", code, out, errOut)
	}
	cmd.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd, 10*time.Second)
	out = cmd.Stdout.(*bytes.Buffer).String()
	if !strings.Contains(out, "4 created, 0 updated, 0 withdrawn") || !strings.Contains(out, "events: the follow began") ||
		!strings.Contains(out, "6 finding(s): 2 created, 2 updated, 0 withdrawn") || !strings.Contains(out, "event(s) added") {
		t.Errorf("ingest --follow said:\n%s", out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

// TestFollowKilledThreeTimesLosesAndRepeatsNoFinding: ingest --follow
// killed with SIGKILL three times, each time just after lines were
// appended, then started again: every round's findings_changed entry
// names each finding created once, none is lost, and the kept answer is
// a one-shot run's.
func TestFollowKilledThreeTimesLosesAndRepeatsNoFinding(t *testing.T) {
	lines := strings.SplitAfter(readFile(t, filepath.Join("..", "..", "sample-incidents", "egress-probe-exfil", "ledger.jsonl")), "\n")
	src := filepath.Join(t.TempDir(), "ledger.jsonl")
	dir := filepath.Join(t.TempDir(), "incident")
	appendPart := func(from, to int) {
		f, err := os.OpenFile(src, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(strings.Join(lines[from:to], ""))
		f.Close()
	}
	quarter := len(lines) / 4
	appendPart(0, quarter)
	kept := func() time.Time {
		info, err := os.Stat(filepath.Join(dir, "engine", "result.gob"))
		if err != nil {
			return time.Time{}
		}
		return info.ModTime()
	}
	for i := 1; i <= 3; i++ {
		started := time.Now()
		cmd := cordonProcess(t, "ingest", "--follow", "--incident", dir, src)
		waitFor(t, "a round of the detectors", func() bool { return kept().After(started) })
		appendPart(i*quarter, min((i+1)*quarter, len(lines)))
		if i == 3 {
			appendPart((i+1)*quarter, len(lines))
		}
		time.Sleep(time.Duration(i*150) * time.Millisecond) // mid-round, or just after
		cmd.Process.Kill()
		cmd.Wait()
	}
	cmd := cordonProcess(t, "ingest", "--follow", "--incident", dir, src)
	waitFor(t, "the last start's round", func() bool {
		return strings.Contains(readFile(t, filepath.Join(dir, "sources.json")), fmt.Sprintf(`"offset": %d`, len(strings.Join(lines, ""))))
	})
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd, 10*time.Second)

	created := map[string]int{}
	for _, l := range strings.Split(readFile(t, filepath.Join(dir, "journal.jsonl")), "\n") {
		var e struct {
			Type    string                  `json:"type"`
			Payload incident.FindingsChange `json:"payload"`
		}
		if json.Unmarshal([]byte(l), &e) != nil || e.Type != "findings_changed" {
			continue
		}
		for _, id := range e.Payload.Created {
			created[id]++
		}
		for _, id := range e.Payload.Withdrawn {
			created[id]--
		}
	}
	code, out, errOut := cordon("findings", "--incident", dir, "--json", "--recompute")
	if code != 0 {
		t.Fatalf("findings: exit %d %s", code, errOut)
	}
	docs := jsonLines(t, "findings", out)
	if len(docs) == 0 {
		t.Fatal("no findings at all")
	}
	for _, d := range docs {
		if id := d["id"].(string); created[id] != 1 {
			t.Errorf("finding %s %s: created %d times over the rounds, want once", id, d["detector"], created[id])
		}
		delete(created, d["id"].(string))
	}
	for id, n := range created {
		if n != 0 {
			t.Errorf("finding %s created %d times and not withdrawn, but not in the answer", id, n)
		}
	}
	if code, kept, _ := cordon("findings", "--incident", dir, "--json"); code != 0 || kept != out {
		t.Errorf("the kept answer differs from a run over the whole index:\n%s\nwant\n%s", kept, out)
	}
}
