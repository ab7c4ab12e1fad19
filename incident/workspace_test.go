package incident

import (
	"errors"
	"testing"

	"github.com/cordon-ir/cordon/journal"
)

// TestOpenWhileAWriterCreatesTheWorkspace: between a writer taking the lock
// and its index appearing, a reader is told the workspace is in use, not
// that there is none (a flaky exit 6 instead of 4).
func TestOpenWhileAWriterCreatesTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	l, err := journal.LockWorkspace(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, journal.ErrLocked) {
		t.Errorf("open during creation: %v, want journal.ErrLocked", err)
	}
	l.Release()
	if _, err := Open(dir); !errors.Is(err, ErrNoIncident) {
		t.Errorf("open of a folder without an index: %v, want ErrNoIncident", err)
	}
}
