//go:build windows

package platform

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Lock takes a lock of mode on the first byte of f with LockFileEx:
// waiting for it when wait is set, else failing at once with
// ErrWouldBlock. Every cordon process locks the same byte, so it excludes
// as flock does on Unix; the lock ends when f is closed or its process
// dies.
func Lock(f *os.File, mode Mode, wait bool) error {
	var flags uint32
	if mode == Exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	err := windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return ErrWouldBlock
	}
	return err
}

// Unlock drops the lock Lock took on f.
func Unlock(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}
