//go:build !unix

package main

import "errors"

// limitFileSize has no rlimit to set here; the tests that need one are
// built for Unix only.
func limitFileSize(size string) {
	if size != "" {
		panic("no file size limit on this platform")
	}
}

func mkfifo(string) error { return errors.ErrUnsupported }
