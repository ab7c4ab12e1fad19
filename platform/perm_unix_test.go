//go:build unix

package platform

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOpenToOthersAndTrust: a file is open to others when its group or
// anyone else may read, write or run it; whom it trusts to write it is
// "others" when anyone may, "group" when its group may.
func TestOpenToOthersAndTrust(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode  os.FileMode
		open  bool
		trust string
	}{
		{0o600, false, ""}, {0o640, true, ""}, {0o620, true, "group"}, {0o604, true, ""}, {0o602, true, "others"}, {0o700, false, ""},
	} {
		if err := os.Chmod(path, c.mode); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := OpenToOthers(info); got != c.open {
			t.Errorf("mode %04o: open to others %v, want %v", c.mode, got, c.open)
		}
		if got := Trust(info); got != c.trust {
			t.Errorf("mode %04o: trust %q, want %q", c.mode, got, c.trust)
		}
	}
}
