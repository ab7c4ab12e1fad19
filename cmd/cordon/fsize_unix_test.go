//go:build unix

package main

import (
	"os/signal"
	"strconv"
	"syscall"
)

// limitFileSize makes this process's writes past size bytes fail with
// EFBIG, as a full disk fails them with ENOSPC, instead of killing it with
// SIGXFSZ: a write failure without root or a small filesystem.
func limitFileSize(size string) {
	if size == "" {
		return
	}
	n, err := strconv.ParseUint(size, 10, 64)
	if err != nil {
		panic(err)
	}
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		panic(err)
	}
}

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
