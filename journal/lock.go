package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cordon-ir/cordon/platform"
)

// ErrLocked: another process holds the workspace.
var ErrLocked = errors.New("incident in use")

// Files of the workspace lock. It is not the journal's own lock (journal.lock,
// held for one append): it guards the index, for as long as a workspace is
// open.
const (
	workspaceLockFile = "lock"
	workspacePIDFile  = "lock.pid"
)

// WorkspaceLock is an advisory flock on DIR/lock. A writer holds it
// exclusively and writes its pid into DIR/lock.pid; readers hold it shared.
// The kernel drops it when the process dies, so a kill -9 never leaves a
// stale lock.
type WorkspaceLock struct {
	dir   string
	write bool
	f     *os.File
	// unlocked: a reader on media nothing can write to holds no lock.
	unlocked bool
}

// LockWorkspace takes the lock of dir, exclusive for a writer and shared
// for a reader. It does not wait: while another process holds it the
// other way, it fails at once with ErrLocked, naming the writer's pid.
//
// A reader of a workspace on read-only media (evidence on a
// write-protected disk, a read-only mount) takes the lock file read-only,
// or goes without one where none can be created: nothing can write there,
// so there is nothing to wait for.
func LockWorkspace(dir string, write bool) (*WorkspaceLock, error) {
	path := filepath.Join(dir, workspaceLockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, FileMode)
	if err != nil && !write && CannotWrite(err) {
		if f, err = os.Open(path); errors.Is(err, os.ErrNotExist) {
			return &WorkspaceLock{dir: dir, unlocked: true}, nil
		}
	}
	if err != nil {
		if write {
			return nil, writeErr(dir, "take the workspace lock", err)
		}
		return nil, fmt.Errorf("open lock: %w", err)
	}
	mode := platform.Shared
	if write {
		mode = platform.Exclusive
	}
	if err := platform.Lock(f, mode, false); err != nil {
		f.Close()
		if errors.Is(err, platform.ErrWouldBlock) {
			return nil, busy(dir, write)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if write {
		// Renamed into place, so a process that finds lock.pid never reads
		// it half written.
		_ = writeAtomic(filepath.Join(dir, workspacePIDFile), []byte(strconv.Itoa(os.Getpid())+"\n"))
	}
	return &WorkspaceLock{dir: dir, write: write, f: f}, nil
}

// HasWorkspaceLock reports whether dir has a lock file: some process has
// opened it as a workspace, and may be creating it still.
func HasWorkspaceLock(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, workspaceLockFile))
	return err == nil
}

func busy(dir string, write bool) error {
	pid := "unknown"
	if b, err := os.ReadFile(filepath.Join(dir, workspacePIDFile)); err == nil {
		pid = strings.TrimSpace(string(b))
	}
	if write {
		return fmt.Errorf("%w: incident %s is in use (pid %s, or a reader such as cordon search)", ErrLocked, dir, pid)
	}
	return fmt.Errorf("%w: incident %s is being written (pid %s): the index cannot be read while an ingest holds it; wait for it to finish, or search from the console that is ingesting", ErrLocked, dir, pid)
}

// Unlocked reports a reader's lock that holds nothing, because the
// workspace is on media nobody can write to.
func (l *WorkspaceLock) Unlocked() bool { return l != nil && l.unlocked }

// Release drops the lock (and a writer's lock.pid). A nil lock, or one
// already released, is a no-op.
func (l *WorkspaceLock) Release() {
	if l == nil || l.f == nil {
		return
	}
	if l.write {
		os.Remove(filepath.Join(l.dir, workspacePIDFile))
	}
	platform.Unlock(l.f)
	l.f.Close()
	l.f = nil
}
