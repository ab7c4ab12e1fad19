//go:build unix

package evidence

import (
	"os/signal"
	"syscall"
	"testing"
)

// limitFileSize makes writes past n bytes fail with EFBIG instead of
// killing the process with SIGXFSZ.
func limitFileSize(t *testing.T, n uint64) {
	t.Helper()
	signal.Ignore(syscall.SIGXFSZ)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		t.Fatal(err)
	}
}
