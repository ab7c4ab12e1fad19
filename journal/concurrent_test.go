package journal

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// checkComplete asserts the journal verifies and holds each text once.
func checkComplete(t *testing.T, j *Journal, texts map[string]bool) {
	t.Helper()
	es, torn, err := j.Read()
	if err != nil || torn != nil {
		t.Fatalf("Read: %v, torn %v", err, torn)
	}
	if len(es) != len(texts) {
		t.Errorf("%d entries, want %d", len(es), len(texts))
	}
	seen := map[string]bool{}
	for i, e := range es {
		if e.Seq != int64(i+1) {
			t.Fatalf("line %d holds seq %d", i+1, e.Seq)
		}
		if seen[e.Text] || !texts[e.Text] {
			t.Errorf("entry %d text %q duplicated or unexpected", e.Seq, e.Text)
		}
		seen[e.Text] = true
	}
	if v, err := j.Verify(); err != nil || !v.OK() || v.Entries != len(texts) {
		t.Errorf("Verify: %+v %v", v.Problem, err)
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	dir := privateDir(t)
	// Two Journal values on one directory: goroutines of one value share
	// its mutex, the two values contend on the flock.
	var js [2]*Journal
	for i := range js {
		var err error
		if js[i], err = Open(dir); err != nil {
			t.Fatal(err)
		}
	}
	const writers, each = 8, 50
	texts := map[string]bool{}
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := 0; w < writers; w++ {
		for i := 0; i < each; i++ {
			texts[fmt.Sprintf("w%d-%d", w, i)] = true
		}
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := js[w%2].Append(context.Background(), Entry{Type: EntryNote, Actor: testActor, Text: fmt.Sprintf("w%d-%d", w, i)})
				if err != nil {
					errs <- err
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkComplete(t, js[0], texts)
}

// TestHelperProcess appends for TestConcurrentProcesses when
// run as a child; otherwise it does nothing.
func TestHelperProcess(t *testing.T) {
	dir := os.Getenv("CORDON_JOURNAL_HELPER_DIR")
	if dir == "" {
		return
	}
	n, _ := strconv.Atoi(os.Getenv("CORDON_JOURNAL_HELPER_N"))
	name := os.Getenv("CORDON_JOURNAL_HELPER_NAME")
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: Actor{Name: name, Via: ViaCLI}, Text: fmt.Sprintf("%s-%d", name, i)}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConcurrentProcesses(t *testing.T) {
	dir := privateDir(t)
	const each = 100
	texts := map[string]bool{}
	var cmds []*exec.Cmd
	for _, name := range []string{"p1", "p2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		cmd.Env = append(os.Environ(), "CORDON_JOURNAL_HELPER_DIR="+dir,
			"CORDON_JOURNAL_HELPER_N="+strconv.Itoa(each), "CORDON_JOURNAL_HELPER_NAME="+name)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
		for i := 0; i < each; i++ {
			texts[fmt.Sprintf("%s-%d", name, i)] = true
		}
	}
	// This process writes too, while the children run.
	j, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < each; i++ {
		if _, err := j.Append(context.Background(), Entry{Type: EntryNote, Actor: testActor, Text: fmt.Sprintf("p0-%d", i)}); err != nil {
			t.Fatal(err)
		}
		texts[fmt.Sprintf("p0-%d", i)] = true
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper process: %v", err)
		}
	}
	checkComplete(t, j, texts)
}

// A journal verified while another writer appends verifies as it was at
// that moment: never a stale head, never an entry half-read.
func TestVerifyWhileAppending(t *testing.T) {
	dir := privateDir(t)
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir) // another value, as another process would hold
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Append(context.Background(), Entry{Actor: Actor{Name: "ana", Via: ViaCLI}, Type: EntryNote, Text: fmt.Sprintf("n%d", i)}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for range 200 {
		if v, err := r.Verify(); err != nil || !v.OK() {
			t.Errorf("verify while appending: %v %v", v.Problem, err)
			break
		}
	}
	close(stop)
	wg.Wait()
}

// A verify that reads the head before the first append reads no entry
// that append writes: the journal's size then is none, not unknown (a
// verify that began on a new case reported its head missing).
func TestVerifyBeforeTheFirstAppendReadsNothingAfter(t *testing.T) {
	dir := privateDir(t)
	w, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, hasHead, size, err := r.headAndSize()
	if err != nil || hasHead || size != 0 {
		t.Fatalf("before any append: head %v, size %d, %v; want no head and size 0", hasHead, size, err)
	}
	for i := range 2 {
		if _, err := w.Append(context.Background(), Entry{Actor: Actor{Name: "ana", Via: ViaCLI}, Type: EntryNote, Text: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	lines := 0
	if err := r.scanLinesTo(0, size, func(fileLine) error { lines++; return nil }); err != nil || lines != 0 {
		t.Fatalf("read %d lines up to the size taken before the appends (%v), want none", lines, err)
	}
}
