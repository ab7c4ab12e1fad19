package incident

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordon-ir/cordon/evidence"
)

// indexHeld counts what this process holds of the index under dir: its
// files open and its segments mapped.
func indexHeld(t *testing.T, dir string) (open, mapped int) {
	t.Helper()
	index := filepath.Join(dir, indexDir) + "/"
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if to, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && strings.HasPrefix(to, index) {
			open++
		}
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(maps), "\n") {
		if strings.Contains(line, " "+index) {
			mapped++
		}
	}
	return open, mapped
}

// A workspace that reads alone (a command) lets its index go while a
// replay reads the replay log, files and mapped segments, and gives the
// answer the index gave; the next read opens the index again. One that
// does not (a console) keeps it open.
func TestReplayAloneLetsTheIndexGo(t *testing.T) {
	ctx := context.Background()
	ws, want := replayed(t, filepath.Join("..", "sample-incidents", "egress-probe-exfil"))
	dir := ws.Dir
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	for _, alone := range []bool{false, true} {
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if open, mapped := indexHeld(t, dir); open == 0 || mapped == 0 {
			t.Fatalf("an open index: %d files open, %d mappings", open, mapped)
		}
		if alone {
			r.ReadsAlone()
		}
		got, err := r.ScanWith(ctx, FindingsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if from := r.ReplayedFrom(); from != "the replay log" {
			t.Fatalf("the replay read %q", from)
		}
		sameResult(t, "replayed alone", got, want)
		open, mapped := indexHeld(t, dir)
		if alone != (open == 0 && mapped == 0) {
			t.Fatalf("alone %v: after the replay the process holds %d of the index's files and %d mappings", alone, open, mapped)
		}
		hits, err := r.Search(ctx, evidence.Request{Query: evidence.MustParse("agent:agent-7")})
		if err != nil || hits.Total == 0 {
			t.Fatalf("a search after the replay: %v, %v", hits, err)
		}
		if open, mapped := indexHeld(t, dir); open == 0 || mapped == 0 {
			t.Fatalf("after a read: %d files open, %d mappings", open, mapped)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
