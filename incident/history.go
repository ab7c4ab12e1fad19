package incident

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/platform"
)

// historyFile holds the queries run in the consoles of a workspace; the
// lock file beside it serialises writers.
const (
	historyFile     = "history.json"
	historyLockFile = "history.lock"
)

// MaxHistory bounds the queries a workspace keeps.
const MaxHistory = 200

// History is the search history of a workspace (DIR/history.json, oldest
// first, each query once): what any console opened on it ran, so that ↑ in
// the search bar finds yesterday's queries and a colleague's. It is not
// case state: observers' searches are kept too, and nothing is journaled.
type History struct {
	dir string
}

// OpenHistory returns the history of the workspace in dir; nothing is read
// until Load or Add.
func OpenHistory(dir string) *History { return &History{dir: dir} }

// History returns the workspace's search history.
func (w *Workspace) History() *History { return OpenHistory(w.Dir) }

// Load reads the history, oldest first (none yet: empty).
func (h *History) Load() ([]string, error) {
	b, err := os.ReadFile(filepath.Join(h.dir, historyFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read search history: %w", err)
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(h.dir, historyFile), err)
	}
	return MergeHistory(list), nil
}

// Add appends q as the newest query and returns the whole history. Several
// consoles (SSH sessions) share a workspace: under an exclusive lock it
// re-reads the file, so that a query another console added in the meantime
// is kept, then writes it atomically. An unreadable file is started afresh
// rather than blocking every later search.
func (h *History) Add(q string) ([]string, error) {
	q = strings.TrimSpace(q)
	f, err := os.OpenFile(filepath.Join(h.dir, historyLockFile), os.O_CREATE|os.O_RDWR, journal.FileMode)
	if err != nil {
		return nil, fmt.Errorf("search history: %w", err)
	}
	defer f.Close()
	if err := platform.Lock(f, platform.Exclusive, true); err != nil {
		return nil, fmt.Errorf("lock search history: %w", err)
	}
	defer platform.Unlock(f)
	list, loadErr := h.Load()
	if q == "" {
		return list, loadErr
	}
	list = MergeHistory(append(list, q))
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return list, err
	}
	if err := writeAtomic(filepath.Join(h.dir, historyFile), append(b, '\n')); err != nil {
		return list, fmt.Errorf("save search history: %w", err)
	}
	return list, nil
}

// MergeHistory dedupes a history, oldest first: a query run again moves to
// the end, blanks go, and only the newest MaxHistory are kept.
func MergeHistory(list []string) []string {
	out := make([]string, 0, len(list))
	seen := make(map[string]bool, len(list))
	for i := len(list) - 1; i >= 0 && len(out) < MaxHistory; i-- {
		q := strings.TrimSpace(list[i])
		if q == "" || seen[q] {
			continue
		}
		seen[q] = true
		out = append(out, q)
	}
	slices.Reverse(out)
	return out
}
