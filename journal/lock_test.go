package journal

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWorkspaceLockOneWriter: a writer excludes a second writer and every
// reader, at once and naming its pid; readers share; releasing lets the
// next one in and removes lock.pid.
func TestWorkspaceLockOneWriter(t *testing.T) {
	dir := t.TempDir()
	if HasWorkspaceLock(dir) {
		t.Fatal("a fresh directory has a lock file")
	}
	w, err := LockWorkspace(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if !HasWorkspaceLock(dir) {
		t.Error("no lock file while a writer holds the lock")
	}
	pid := "pid " + strconv.Itoa(os.Getpid())
	for _, write := range []bool{true, false} {
		if _, err := LockWorkspace(dir, write); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), pid) {
			t.Errorf("LockWorkspace(write=%v) while a writer holds it: %v, want ErrLocked naming %s", write, err, pid)
		}
	}
	w.Release()
	if _, err := os.Stat(filepath.Join(dir, workspacePIDFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock.pid after release: %v", err)
	}
	w2, err := LockWorkspace(dir, true)
	if err != nil {
		t.Fatalf("a writer after release: %v", err)
	}
	w.Release() // again: it must not remove the next writer's pid
	if _, err := os.Stat(filepath.Join(dir, workspacePIDFile)); err != nil {
		t.Errorf("a second release of an old lock removed the writer's lock.pid: %v", err)
	}
	w2.Release()

	r1, err := LockWorkspace(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Release()
	r2, err := LockWorkspace(dir, false)
	if err != nil {
		t.Fatalf("a second reader: %v", err)
	}
	r2.Release()
	if _, err := LockWorkspace(dir, true); !errors.Is(err, ErrLocked) {
		t.Errorf("a writer while a reader holds it: %v, want ErrLocked", err)
	}
}
