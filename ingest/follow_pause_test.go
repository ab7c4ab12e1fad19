package ingest

import (
	"testing"
	"time"
)

// A round that read records is followed by the next after a tenth of the
// interval; a quiet one after all of it.
func TestFollowPause(t *testing.T) {
	const every = 500 * time.Millisecond
	for _, c := range []struct {
		name string
		res  []FileResult
		want time.Duration
	}{
		{"no inputs", nil, every},
		{"nothing new", []FileResult{{Path: "a"}, {Path: "b"}}, every},
		{"events in one file", []FileResult{{Path: "a"}, {Path: "b", Events: 3, Stored: 3, New: 3}}, every / 10},
		{"only duplicates", []FileResult{{Path: "a", Events: 2, Stored: 2}}, every / 10},
		{"only rejects", []FileResult{{Path: "a", Rejects: 1}}, every / 10},
		{"an earlier stage merged", []FileResult{{Path: "a", Merged: 1}}, every / 10},
	} {
		if got := pause(c.res, every); got != c.want {
			t.Errorf("%s: pause %s, want %s", c.name, got, c.want)
		}
	}
}
