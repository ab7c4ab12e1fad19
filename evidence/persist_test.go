package evidence

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fsizeLimit is the largest file the child process of the write-failure
// tests may write: the index outgrows it after a few batches, and the
// kernel refuses the next write past it (EFBIG) as a full disk would.
const fsizeLimit = 1 << 20

// noisyEvents are n events at distinct times with text that compresses
// badly, so that the index grows quickly.
func noisyEvents(from, n int) []Event {
	evs := make([]Event, n)
	for i := range evs {
		k := from + i
		raw := fmt.Sprintf("event %d %x %x %x", k, k*7919, k*104729, k*1299709)
		evs[i] = Event{
			ID: MakeID("test", int64(k), 0, []byte(raw)), Time: t0.Add(time.Duration(k) * time.Millisecond),
			Source: SourceProxy, Format: "test", Kind: KindNetRequest,
			URL: fmt.Sprintf("http://h%d.example/%x/%x", k%97, k*31337, k*65537), Message: raw, Raw: raw,
		}
	}
	return evs
}

const (
	noisyBatch   = 2000
	noisyBatches = 5
)

// The write-failure child: index batches until the store refuses one,
// then report how many events the store said were on disk.
func writeFailureChild(t *testing.T, dir string) {
	limitFileSize(t, fsizeLimit)
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.(Preparer)
	var mu sync.Mutex
	stored, indexed := 0, 0
	var ierr error
	for b := 0; b < noisyBatches && ierr == nil; b++ {
		// A first small batch reaches the disk before the next ones come;
		// those, merged by the persister, outgrow the limit.
		n := noisyBatch
		if b == 0 {
			n = noisyBatch / 10
		}
		prep, err := p.Prepare(noisyEvents(b*noisyBatch, n))
		if err != nil {
			t.Fatal(err)
		}
		n, ierr = p.IndexPrepared(context.Background(), prep, map[string][]byte{"batch": []byte(strconv.Itoa(b))}, nil, func(fresh int) {
			mu.Lock()
			stored += fresh
			mu.Unlock()
		})
		indexed += n
		if b == 0 {
			if err := s.Sync(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	serr := s.Sync(context.Background())
	if ierr == nil {
		// Every batch was taken before the failure was known (several
		// builders): the next one, after Sync has reported it, is refused.
		prep, err := p.Prepare(noisyEvents(noisyBatches*noisyBatch, 1))
		if err != nil {
			t.Fatal(err)
		}
		_, ierr = p.IndexPrepared(context.Background(), prep, nil, nil, nil)
	}
	cerr := s.Close()
	mu.Lock()
	defer mu.Unlock()
	fmt.Printf("\nstored=%d indexed=%d index=%v sync=%v close=%v\n", stored, indexed,
		errors.Is(ierr, ErrWrite), errors.Is(serr, ErrWrite), errors.Is(cerr, ErrWrite))
	fmt.Printf("message=%v\n", ierr)
}

// A write the persister fails at after Batch returned reaches Sync, Close
// and the next Index as ErrWrite, and what was reported stored is exactly
// what a reopened store holds (regression: a full disk was reported as
// success while scorch's persister retried in the background).
func TestPersisterWriteFailureIsReported(t *testing.T) {
	if dir := os.Getenv("EVIDENCE_WRITE_FAILURE_CHILD"); dir != "" {
		writeFailureChild(t, dir)
		return
	}
	dir := filepath.Join(t.TempDir(), "index.bleve")
	cmd := exec.Command(os.Args[0], "-test.run=^TestPersisterWriteFailureIsReported$")
	cmd.Env = append(os.Environ(), "EVIDENCE_WRITE_FAILURE_CHILD="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var stored, indexed int
	var inIndex, inSync, inClose bool
	var line, message string
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "stored=") {
			line = l
		}
		if strings.HasPrefix(l, "message=") {
			message = l
		}
	}
	t.Logf("%s\n%s", line, message)
	if _, err := fmt.Sscanf(line, "stored=%d indexed=%d index=%t sync=%t close=%t", &stored, &indexed, &inIndex, &inSync, &inClose); err != nil {
		t.Fatalf("child output %q: %v\n%s", line, err, out)
	}
	if !inIndex || !inSync || !inClose {
		t.Fatalf("a write failure must reach the next Index, Sync and Close as ErrWrite: %s\n%s", line, out)
	}
	if stored >= indexed {
		t.Fatalf("stored %d of %d indexed: the file size limit was never reached", stored, indexed)
	}
	if !strings.Contains(message, "file too large") {
		t.Errorf("the error does not name the cause: %s", message)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := s.Counts().Total; got != int64(stored) {
		t.Errorf("reopened: %d events counted, the failed run reported %d stored", got, stored)
	}
	h, err := s.Search(context.Background(), Request{Query: MustParse("format:test"), Limit: 1})
	if err != nil || h.Total != uint64(stored) {
		t.Errorf("reopened: %v events found (%v), the failed run reported %d stored", h, err, stored)
	}
	// The batches lost are indexed again, and only they count as new.
	all := noisyEvents(0, noisyBatch*noisyBatches)
	n := 0
	for i := 0; i < len(all); i += noisyBatch {
		fresh, err := s.Index(context.Background(), all[i:i+noisyBatch], nil)
		if err != nil {
			t.Fatal(err)
		}
		n += fresh
	}
	if n != len(all)-stored || s.Counts().Total != int64(len(all)) {
		t.Errorf("re-index: %d new, %d in all; want %d new, %d in all", n, s.Counts().Total, len(all)-stored, len(all))
	}
	if err := s.Sync(context.Background()); err != nil {
		t.Errorf("sync without a limit: %v", err)
	}
}
