//go:build !unix && !windows

package platform

import (
	"errors"
	"os"
)

// Lock fails where cordon knows no locking (wasm, plan9): a workspace
// must not be shared without one.
func Lock(*os.File, Mode, bool) error { return errors.ErrUnsupported }

// Unlock is a no-op where Lock cannot lock.
func Unlock(*os.File) error { return nil }
