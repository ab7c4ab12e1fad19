package journal

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/cordon-ir/cordon/platform"
)

// Modes of what cordon creates in a workspace: the evidence holds what the
// agent under investigation read or stole (keys, tokens, customer data), so
// only the responder who owns the workspace may read it.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// ErrWorkspaceReadOnly: the workspace cannot be written (a read-only mount,
// write-protected media, files the user may not change). Readers work on
// it; writers fail with this error.
var ErrWorkspaceReadOnly = errors.New("the workspace is read-only")

// ErrShared: a writer refused a workspace that other users can read.
var ErrShared = errors.New("the workspace is readable by other users")

// CannotWrite reports an error that says the file system or the file's
// permissions forbid writing, rather than a failure worth retrying.
func CannotWrite(err error) bool {
	return errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}

// writeErr wraps a failure to write in dir: as ErrWorkspaceReadOnly when
// the workspace cannot be written at all, with what was attempted.
func writeErr(dir, what string, err error) error {
	if CannotWrite(err) {
		return fmt.Errorf("%w: %s: cannot %s (%v); read it with cordon search, stats, findings, report, or copy it to a writable disk to work on the case", ErrWorkspaceReadOnly, dir, what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// CheckWritable says why a writer may not write into the workspace dir:
// it is on read-only media or not the user's to write
// (ErrWorkspaceReadOnly), or other users can read it and shared is not set
// (ErrShared). A missing dir is for the caller's own open to report.
func CheckWritable(dir string, shared bool) error {
	if err := platform.Writable(dir); err != nil && CannotWrite(err) {
		return writeErr(dir, "write there", err)
	}
	if shared {
		return nil
	}
	return CheckPrivate(dir)
}

// CheckPrivate refuses a workspace directory that users other than its
// owner can enter: whatever cordon writes there would join evidence they
// can read (or, if they can write, tamper with). The error names the fix.
func CheckPrivate(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return nil
	}
	if perm := info.Mode().Perm(); platform.OpenToOthers(info) {
		return fmt.Errorf("%w: %s has mode %04o, so the evidence in it (and any secret the agent took) is open to other users; make it private with: chmod -R go-rwx %s", ErrShared, dir, perm, shellQuote(dir))
	}
	return nil
}

// shellQuote quotes s for a POSIX shell when it holds anything beyond the
// characters of a plain path, so that the fix can be pasted as it is.
func shellQuote(s string) string {
	plain := s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+,:@%=") == ""
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
