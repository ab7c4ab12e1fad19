package platform

import (
	"os"
	"path/filepath"
	"testing"
)

// The parts are written one after the other, in place of what the file
// held, and nothing is left beside it.
func TestWriteAtomicParts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("the old content, longer than the new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomicParts(path, []byte("ab"), nil, []byte("c"), []byte("def")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "abcdef" {
		t.Fatalf("the file holds %q (%v), want abcdef", b, err)
	}
	if es, err := os.ReadDir(dir); err != nil || len(es) != 1 {
		t.Errorf("the folder holds %d entries (%v), want the file alone", len(es), err)
	}
}
