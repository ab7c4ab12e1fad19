package incident

import (
	"errors"
	"testing"
)

// TestOpenWhileAWriterCreatesTheWorkspace: between a writer taking the lock
// and its index appearing, a reader is told the workspace is in use, not
// that there is none (a flaky exit 6 instead of 4).
func TestOpenWhileAWriterCreatesTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	l, err := acquire(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrLocked) {
		t.Errorf("open during creation: %v, want ErrLocked", err)
	}
	l.release(dir, true)
	if _, err := Open(dir); !errors.Is(err, ErrNoIncident) {
		t.Errorf("open of a folder without an index: %v, want ErrNoIncident", err)
	}
}
