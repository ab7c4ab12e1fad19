package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCannotWriteNamesReadOnlyMedia: the errors a read-only mount or
// write-protected files give make readers go on without a lock and
// writers say the workspace is read-only; others stay what they are.
func TestCannotWriteNamesReadOnlyMedia(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{&fs.PathError{Op: "open", Path: "lock", Err: syscall.EROFS}, true},
		{&fs.PathError{Op: "open", Path: "lock", Err: syscall.EACCES}, true},
		{fmt.Errorf("open lock: %w", &fs.PathError{Op: "open", Path: "lock", Err: syscall.EPERM}), true},
		{&fs.PathError{Op: "open", Path: "lock", Err: syscall.ENOSPC}, false},
		{os.ErrNotExist, false},
	} {
		if got := CannotWrite(c.err); got != c.want {
			t.Errorf("CannotWrite(%v) = %v, want %v", c.err, got, c.want)
		}
	}
	err := writeErr("/media/case", "open the journal", &fs.PathError{Op: "open", Path: "journal.jsonl", Err: syscall.EROFS})
	if !errors.Is(err, ErrWorkspaceReadOnly) || !strings.HasPrefix(err.Error(), "the workspace is read-only: /media/case") {
		t.Errorf("writeErr: %v", err)
	}
}

// TestCheckPrivateNamesTheFix: a workspace with any permission for group
// or others is refused with the command that fixes it, quoted for a shell.
func TestCheckPrivateNamesTheFix(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "case one")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := CheckPrivate(dir); err != nil {
		t.Errorf("0700: %v", err)
	}
	for _, mode := range []os.FileMode{0o755, 0o750, 0o711, 0o702} {
		os.Chmod(dir, mode)
		err := CheckPrivate(dir)
		if !errors.Is(err, ErrShared) || !strings.Contains(err.Error(), "chmod -R go-rwx '"+dir+"'") {
			t.Errorf("%04o: %v", mode, err)
		}
		if err := CheckWritable(dir, true); err != nil {
			t.Errorf("%04o, shared on purpose: %v", mode, err)
		}
	}
}

// TestReaderLockWithoutALockFile: a reader of a workspace where the lock
// file cannot be created holds a lock that holds nothing, and a writer is
// not kept out by it.
func TestReaderLockWithoutALockFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root creates files in a read-only directory")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o500)
	defer os.Chmod(dir, 0o700)
	l, err := LockWorkspace(dir, false)
	if err != nil || !l.Unlocked() {
		t.Fatalf("reader: %v %v", l, err)
	}
	l.Release()
	if _, err := LockWorkspace(dir, true); !errors.Is(err, ErrWorkspaceReadOnly) {
		t.Errorf("writer: %v, want ErrWorkspaceReadOnly", err)
	}
}
