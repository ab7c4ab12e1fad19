package incident

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrLocked: another process holds the workspace.
var ErrLocked = errors.New("incident in use")

// lock is an advisory flock on DIR/lock. A writer holds it exclusively and
// writes its pid into DIR/lock.pid; readers hold it shared. The kernel drops
// it when the process dies, so a kill -9 never leaves a stale lock.
type lock struct {
	f *os.File
}

func acquire(dir string, write bool) (*lock, error) {
	f, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock: %w", err)
	}
	how := syscall.LOCK_SH
	if write {
		how = syscall.LOCK_EX
	}
	if err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, busy(dir, write)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	if write {
		// Renamed into place, so a process that finds lock.pid never reads
		// it half written.
		_ = writeAtomic(filepath.Join(dir, "lock.pid"), []byte(strconv.Itoa(os.Getpid())+"\n"))
	}
	return &lock{f: f}, nil
}

func busy(dir string, write bool) error {
	pid := "unknown"
	if b, err := os.ReadFile(filepath.Join(dir, "lock.pid")); err == nil {
		pid = strings.TrimSpace(string(b))
	}
	if write {
		return fmt.Errorf("%w: incident %s is in use (pid %s, or a reader such as cordon search)", ErrLocked, dir, pid)
	}
	return fmt.Errorf("%w: incident %s is being written (pid %s): the index cannot be read while an ingest holds it; wait for it to finish, or search from the console that is ingesting", ErrLocked, dir, pid)
}

func (l *lock) release(dir string, write bool) {
	if l == nil || l.f == nil {
		return
	}
	if write {
		os.Remove(filepath.Join(dir, "lock.pid"))
	}
	syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	l.f.Close()
}
