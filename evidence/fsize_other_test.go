//go:build !unix

package evidence

import "testing"

// limitFileSize has no rlimit to set here.
func limitFileSize(t *testing.T, _ uint64) {
	t.Skip("no file size limit on this platform")
}
