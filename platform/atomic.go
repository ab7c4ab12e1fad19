package platform

import (
	"io"
	"os"
	"path/filepath"
)

// WriteAtomic replaces path with data via a synced temporary file beside
// it, so that a reader never sees it half written and a crash leaves the
// old content or the new, never a mix.
func WriteAtomic(path string, data []byte) error {
	return WriteAtomicWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteAtomicWith is WriteAtomic of what write writes to the temporary
// file: a large file is written as it is made, never held whole. An error
// from write leaves path as it was.
func WriteAtomicWith(path string, write func(w io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
