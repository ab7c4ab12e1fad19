//go:build unix

package platform

import (
	"errors"
	"os"
	"syscall"
)

// Lock takes an advisory lock of mode on the whole of f: waiting for it
// when wait is set, else failing at once with ErrWouldBlock. The lock goes
// with the open file, so it ends when f is closed or its process dies.
func Lock(f *os.File, mode Mode, wait bool) error {
	how := syscall.LOCK_SH
	if mode == Exclusive {
		how = syscall.LOCK_EX
	}
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			// a signal arrived while waiting: wait again
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrWouldBlock
		default:
			return err
		}
	}
}

// Unlock drops the lock Lock took on f.
func Unlock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
