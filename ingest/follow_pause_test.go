package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A round that read records is followed by the next a tenth of the
// interval after it began, at once when it took longer; a quiet one after
// all of the interval.
func TestFollowPause(t *testing.T) {
	const every = 500 * time.Millisecond
	for _, c := range []struct {
		name string
		res  []FileResult
		took time.Duration
		want time.Duration
	}{
		{"no inputs", nil, 0, every},
		{"nothing new", []FileResult{{Path: "a"}, {Path: "b"}}, 0, every},
		{"events in one file", []FileResult{{Path: "a"}, {Path: "b", Events: 3, Stored: 3, New: 3}}, 0, every / 10},
		{"only duplicates", []FileResult{{Path: "a", Events: 2, Stored: 2}}, 0, every / 10},
		{"only rejects", []FileResult{{Path: "a", Rejects: 1}}, 0, every / 10},
		{"an earlier stage merged", []FileResult{{Path: "a", Merged: 1}}, 0, every / 10},
		{"a busy round of 20 ms", []FileResult{{Path: "a", Events: 3}}, 20 * time.Millisecond, every/10 - 20*time.Millisecond},
		{"a busy round longer than a tenth", []FileResult{{Path: "a", Events: 3}}, 300 * time.Millisecond, 0},
		{"a quiet round however long", []FileResult{{Path: "a"}}, 300 * time.Millisecond, every},
	} {
		if got := pause(c.res, every, c.took); got != c.want {
			t.Errorf("%s: pause %s, want %s", c.name, got, c.want)
		}
	}
}

// A follow stopped during a busy round's report ends there: the next
// round, due at once, is not begun (the end and a pause of 0 are ready
// together, and a select takes either).
func TestFollowStoppedAfterABusyRoundEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	for i := range 50 {
		writeLines(t, path, 0, 10)
		ctx, cancel := context.WithCancel(context.Background())
		rounds := 0
		err := Follow(ctx, []string{path}, Options{Store: newStore(t)}, time.Nanosecond, func([]FileResult) {
			rounds++
			writeLines(t, path, 10*rounds, 10*rounds+10) // always busy
			cancel()
		})
		if err != nil {
			t.Fatal(err)
		}
		if rounds != 1 {
			t.Fatalf("run %d: %d rounds after the follow was stopped in the first", i, rounds)
		}
		os.Remove(path)
	}
}
