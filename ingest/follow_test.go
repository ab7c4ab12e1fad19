package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// followUntil runs Follow on path in the background and waits until the
// store holds want events (or 20 s pass), then stops it.
func followUntil(t *testing.T, opt Options, path string, want int64, write func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var ferr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		ferr = Follow(ctx, []string{path}, opt, 20*time.Millisecond, nil)
	}()
	write()
	deadline := time.Now().Add(20 * time.Second)
	for opt.Store.Counts().Total < want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// Let a few more rounds run: nothing may be added twice.
	time.Sleep(100 * time.Millisecond)
	cancel()
	wg.Wait()
	if ferr != nil {
		t.Fatal(ferr)
	}
}

// Every line is ingested exactly once across a rename rotation and a
// copytruncate rotation, including the lines written just before each.
func TestFollowSurvivesRotation(t *testing.T) {
	st := newStore(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	writeLines(t, path, 0, 100)
	opt := Options{Store: st, BatchSize: 64}
	// A poller sees a rotation only if it saw the file before it: each
	// rotation waits until the lines before its unread tail are in (a
	// fixed sleep was not enough on a loaded machine, and two rotations
	// within one poll leave nothing to find the middle file by).
	waitFor := func(n int64) {
		for deadline := time.Now().Add(20 * time.Second); st.Counts().Total < n && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	followUntil(t, opt, path, 400, func() {
		waitFor(100)
		writeLines(t, path, 100, 150) // tail before the rename, maybe unread
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		writeLines(t, path, 150, 250)
		waitFor(250)
		writeLines(t, path, 250, 300) // tail before the truncation, maybe unread
		data, _ := os.ReadFile(path)
		os.WriteFile(path+".2", data, 0o644) // copytruncate: copy, then truncate
		os.Truncate(path, 0)
		writeLines(t, path, 300, 400)
	})
	if n := st.Counts().Total; n != 400 {
		t.Errorf("%d events after two rotations, want 400", n)
	}
}

// A writer appending 5,000 lines a second for 10 seconds: every line once.
func TestFollowKeepsUpWithAWriter(t *testing.T) {
	if testing.Short() {
		t.Skip("10 s writer")
	}
	st := newStore(t)
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, path, 0, 1)
	const rate, secs = 5000, 10
	opt := Options{Store: st}
	followUntil(t, opt, path, rate*secs+1, func() {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		start := time.Now()
		for i := 1; i <= rate*secs; i++ {
			fmt.Fprintln(f, ledgerLine(i+1000000))
			if i%(rate/10) == 0 { // 10 bursts a second
				time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / rate)))
			}
		}
	})
	if n := st.Counts().Total; n != rate*secs+1 {
		t.Errorf("%d events, want %d", n, rate*secs+1)
	}
}

// A rotation between a round's look for rotated files and its read of the
// path: the round reads the new file from the top and its checkpoint names
// the new file, so the next round finds the old file's unread tail from the
// checkpoint the round started from.
func TestRotationDuringARoundIsFoundNextRound(t *testing.T) {
	for _, tc := range []struct {
		name   string
		rotate func(path string)
	}{
		{"rename", func(path string) {
			if err := os.Rename(path, path+".1"); err != nil {
				t.Fatal(err)
			}
		}},
		{"copytruncate", func(path string) {
			data, _ := os.ReadFile(path)
			os.WriteFile(path+".1", data, 0o644)
			os.Truncate(path, 0)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			path := filepath.Join(t.TempDir(), "ledger.jsonl")
			opt := Options{Store: st}
			seen := map[string]Checkpoint{}
			writeLines(t, path, 0, 100)
			if _, err := Run(context.Background(), []string{path}, opt); err != nil {
				t.Fatal(err)
			}
			if old := rotated([]string{path}, opt, seen); len(old) != 0 {
				t.Fatalf("nothing rotated yet, found %v", old)
			}
			// The round's look is over; now the tail, the rotation and the
			// round's read of the new file.
			writeLines(t, path, 100, 150)
			tc.rotate(path)
			writeLines(t, path, 150, 250)
			if _, err := Run(context.Background(), []string{path}, opt); err != nil {
				t.Fatal(err)
			}
			if n := st.Counts().Total; n != 200 {
				t.Fatalf("%d events before the next round, want 200 (the tail unread)", n)
			}
			old := rotated([]string{path}, opt, seen)
			if len(old) != 1 || old[0] != path+".1" {
				t.Fatalf("next round found %v, want %s", old, path+".1")
			}
			if _, err := Run(context.Background(), append(old, path), opt); err != nil {
				t.Fatal(err)
			}
			if n := st.Counts().Total; n != 250 {
				t.Errorf("%d events after the next round, want 250", n)
			}
		})
	}
}

// A follow's round reads its file up to where the file ended when the
// round opened it: lines appended while the round reads are the next
// round's. A round that chased them would not end while a writer kept
// pace with it, and every line it read would wait for its end.
func TestFollowRoundEndsWhereItsFileEnded(t *testing.T) {
	st := newStore(t)
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	writeLines(t, path, 0, 3000)
	var once sync.Once
	opt := Options{Store: st, BatchSize: 64, Prepare: func(*evidence.Event) {
		// the round has begun: the file grows while it reads
		once.Do(func() { writeLines(t, path, 3000, 3100) })
	}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var read []int
	err := Follow(ctx, []string{path}, opt, time.Millisecond, func(res []FileResult) {
		n := 0
		for _, r := range res {
			n += r.Events
		}
		if n > 0 {
			read = append(read, n)
		}
		if st.Counts().Total >= 3100 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 2 || read[0] != 3000 || read[1] != 100 {
		t.Errorf("rounds read %v events, want 3000 then the 100 appended during the first", read)
	}
	if n := st.Counts().Total; n != 3100 {
		t.Errorf("%d events stored, want 3100", n)
	}
}
