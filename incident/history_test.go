package incident

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

func TestMergeHistory(t *testing.T) {
	many := make([]string, MaxHistory+5)
	for i := range many {
		many[i] = fmt.Sprintf("q%d", i)
	}
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"empty", nil, []string{}},
		{"run again moves to the end", []string{"a", "b", "a"}, []string{"b", "a"}},
		{"blanks and spaces", []string{" a ", "", "  ", "a"}, []string{"a"}},
		{"capped to the newest", many, many[5:]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MergeHistory(tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("MergeHistory(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestHistoryAddAndReload(t *testing.T) {
	dir := t.TempDir()
	h := OpenHistory(dir)
	if got, err := h.Load(); err != nil || len(got) != 0 {
		t.Fatalf("new workspace: %q %v", got, err)
	}
	for _, q := range []string{"agent:agent-7", "+decision:deny", "agent:agent-7", ""} {
		if _, err := h.Add(q); err != nil {
			t.Fatal(err)
		}
	}
	got, err := OpenHistory(dir).Load()
	if want := []string{"+decision:deny", "agent:agent-7"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("reloaded %q %v, want %q", got, err, want)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left behind: %q", left)
	}
}

// TestHistoryConcurrentConsoles: consoles of several SSH sessions append
// to one workspace at once; none loses another's query.
func TestHistoryConcurrentConsoles(t *testing.T) {
	dir := t.TempDir()
	const consoles, each = 8, 10
	var wg sync.WaitGroup
	for c := range consoles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := OpenHistory(dir) // its own value, as each session has
			for i := range each {
				if _, err := h.Add(fmt.Sprintf("console %d query %d", c, i)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got, err := OpenHistory(dir).Load()
	if err != nil || len(got) != consoles*each {
		t.Fatalf("%d queries kept (%v), want %d", len(got), err, consoles*each)
	}
}

// TestHistoryCorruptFileStartsAfresh: a damaged history.json is reported by
// Load, and the next search starts a new one instead of failing forever.
func TestHistoryCorruptFileStartsAfresh(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, historyFile), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := OpenHistory(dir)
	if _, err := h.Load(); err == nil {
		t.Error("Load of a damaged file reports no error")
	}
	got, err := h.Add("nohup")
	if err != nil || !slices.Equal(got, []string{"nohup"}) {
		t.Errorf("Add after damage: %q %v", got, err)
	}
}
