package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sync"

	"github.com/cordon-ir/cordon/platform"
)

// ErrStateLocked: another shipper holds the checkpoint file.
var ErrStateLocked = errors.New("checkpoint file in use")

// State keeps a shipper's checkpoints (ingest's, one per input file) in
// one JSON file, rewritten atomically each time a batch is acknowledged.
// One shipper holds it at a time (a lock file beside it): two shipping the
// same files would move one checkpoint from two places.
type State struct {
	path string
	lock *os.File

	mu     sync.Mutex
	values map[string]json.RawMessage
}

// stateFile is the file's shape; Version says which.
type stateFile struct {
	Version int                        `json:"version"`
	Values  map[string]json.RawMessage `json:"values"`
}

const stateVersion = 1

// OpenState opens (or starts) the checkpoint file at path.
func OpenState(path string) (*State, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	lf, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	if err := platform.Lock(lf, platform.Exclusive, false); err != nil {
		lf.Close()
		if errors.Is(err, platform.ErrWouldBlock) {
			return nil, fmt.Errorf("%w: another cordon ship is using %s; wait for it or give this one its own --state FILE", ErrStateLocked, path)
		}
		if !errors.Is(err, errors.ErrUnsupported) {
			return nil, fmt.Errorf("checkpoints: lock %s: %w", path, err)
		}
	}
	s := &State{path: path, lock: lf, values: map[string]json.RawMessage{}}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return s, nil
	case err != nil:
		s.Close()
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	var f stateFile
	if err := json.Unmarshal(data, &f); err != nil || f.Version != stateVersion {
		s.Close()
		if err == nil {
			err = fmt.Errorf("version %d, this cordon writes %d", f.Version, stateVersion)
		}
		return nil, fmt.Errorf("checkpoints: %s does not read (%v): move it away to ship every input again from its start", path, err)
	}
	if f.Values != nil {
		s.values = f.Values
	}
	return s, nil
}

// Get returns the value kept under key, nil if none.
func (s *State) Get(key string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.values[key]
}

// Put keeps values and writes the file before it returns.
func (s *State) Put(values map[string][]byte) error {
	if len(values) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next := maps.Clone(s.values)
	for k, v := range values {
		if !json.Valid(v) {
			return fmt.Errorf("checkpoint %q is not JSON", k)
		}
		next[k] = json.RawMessage(v)
	}
	data, err := json.MarshalIndent(stateFile{Version: stateVersion, Values: next}, "", " ")
	if err != nil {
		return err
	}
	if err := platform.WriteAtomic(s.path, append(data, '\n')); err != nil {
		return fmt.Errorf("write checkpoints %s: %w", s.path, err)
	}
	s.values = next
	return nil
}

// Close releases the file.
func (s *State) Close() error {
	if s.lock == nil {
		return nil
	}
	err := s.lock.Close()
	s.lock = nil
	return err
}

// DefaultStatePath is where a shipper to stream on the servers at url
// keeps its checkpoints unless told: under $XDG_STATE_HOME/cordon/ship (or
// ~/.local/state), one file per server list and stream, so that shipping
// the same files to another stream sends them there too. The file is named
// by a digest of the URL without its user and password.
func DefaultStatePath(url, stream string) (string, error) {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no $XDG_STATE_HOME nor home folder for the checkpoints: give --state FILE")
		}
		dir = filepath.Join(home, ".local", "state")
	}
	sum := sha256.Sum256([]byte(redactURL(url)))
	return filepath.Join(dir, "cordon", "ship", Token(stream)+"-"+hex.EncodeToString(sum[:6])+".json"), nil
}
