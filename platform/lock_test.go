package platform

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func open(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// Locks are per open file, as two cordon processes hold them: a second
// open of the same lock file is refused an exclusive lock while a reader
// holds it, shares a reader's, and gets it once the first is dropped.
func TestLocksExcludeAcrossOpenFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	a, b := open(t, path), open(t, path)
	if err := Lock(a, Shared, false); err != nil {
		t.Fatal(err)
	}
	if err := Lock(b, Exclusive, false); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("exclusive beside a shared lock: %v, want ErrWouldBlock", err)
	}
	if err := Lock(b, Shared, false); err != nil {
		t.Fatalf("two shared locks: %v", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := Unlock(b); err != nil {
		t.Fatal(err)
	}
	if err := Lock(b, Exclusive, true); err != nil {
		t.Fatalf("exclusive once free: %v", err)
	}
	if err := Lock(a, Shared, false); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("shared beside an exclusive lock: %v, want ErrWouldBlock", err)
	}
}

func TestFileIDFollowsARename(t *testing.T) {
	dir := t.TempDir()
	old, renamed := filepath.Join(dir, "a.log"), filepath.Join(dir, "a.log.1")
	os.WriteFile(old, []byte("x\n"), 0o600)
	before, _ := os.Stat(old)
	os.Rename(old, renamed)
	os.WriteFile(old, []byte("y\n"), 0o600)
	after, _ := os.Stat(renamed)
	fresh, _ := os.Stat(old)
	if FileID(before) == 0 {
		t.Skip("no file ids on this platform")
	}
	if FileID(before) != FileID(after) || FileID(fresh) == FileID(after) {
		t.Errorf("ids: before %d, renamed %d, new file %d", FileID(before), FileID(after), FileID(fresh))
	}
}
