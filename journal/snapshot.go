package journal

import (
	"errors"
	"os"
	"path/filepath"
)

// Snapshot reads the journal's entries and its head as they are between
// two appends: it holds the append lock while it reads both, so that the
// head it returns is the last of the entries it returns (a bundle's
// manifest records that head, and its journal verifies to it). Either is
// nil when its file does not exist.
func (j *Journal) Snapshot() (entries, head []byte, err error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	// Where the lock cannot be taken (read-only media) nobody appends:
	// the files are read as they are.
	if unlock, lerr := j.lock(); lerr == nil {
		defer unlock()
	}
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(j.dir, name))
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return b, err
	}
	if entries, err = read(fileName); err != nil {
		return nil, nil, err
	}
	if head, err = read(headFile); err != nil {
		return nil, nil, err
	}
	return entries, head, nil
}
