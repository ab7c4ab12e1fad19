package platform

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The data replaces what the file held, longer than it, and nothing is
// left beside it.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("the old content, longer than the new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(path, []byte("abcdef")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "abcdef" {
		t.Fatalf("the file holds %q (%v), want abcdef", b, err)
	}
	if es, err := os.ReadDir(dir); err != nil || len(es) != 1 {
		t.Errorf("the folder holds %d entries (%v), want the file alone", len(es), err)
	}
}

// A file written as it is made: what write wrote replaces the file; when
// write fails, the file holds what it held and nothing is left beside it.
func TestWriteAtomicWith(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the writer failed")
	if err := WriteAtomicWith(path, func(w io.Writer) error {
		w.Write([]byte("half of the new"))
		return failed
	}); !errors.Is(err, failed) {
		t.Fatalf("a failing writer: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("after a failing writer the file holds %q", b)
	}
	if err := WriteAtomicWith(path, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("the file holds %q, want new", b)
	}
	if es, err := os.ReadDir(dir); err != nil || len(es) != 1 {
		t.Errorf("the folder holds %d entries (%v), want the file alone", len(es), err)
	}
}
