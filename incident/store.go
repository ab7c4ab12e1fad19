package incident

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/evidence/vlogs"
)

// storeFile records which store holds a workspace's events when that is
// not the embedded index: the journal, custody, cordon.yaml and the
// engine's state stay in the folder, only the events live elsewhere.
const storeFile = "store.json"

// storeRecord is what storeFile holds: the store's address (its scheme
// says which backend) and the case's name there.
type storeRecord struct {
	Addr string `json:"addr"`
	Case string `json:"case"`
}

// ErrStore: the store a workspace names cannot be used as asked.
var ErrStore = errors.New("evidence store")

// Store puts a new workspace's events in the store at addr
// (victorialogs://host:port[,host:port]) instead of the Bleve index under
// the folder; the workspace records it, and every later open uses it. An
// existing workspace is opened on the store it records, and refuses
// another. "" keeps what the workspace has.
func Store(addr string) Option {
	return func(o *options) {
		if addr != "" {
			o.store = addr
		}
	}
}

// CheckStore validates a store address before anything is created.
func CheckStore(addr string) error {
	if addr == "" {
		return nil
	}
	if _, err := remoteOpener(addr); err != nil {
		return err
	}
	return nil
}

// remoteOpener picks the backend an address names by its scheme: a
// backend beside VictoriaLogs (OpenSearch, say) is one more case here.
func remoteOpener(addr string) (func(ctx context.Context, dir string, rec storeRecord, write bool) (evidence.Store, error), error) {
	switch {
	case strings.HasPrefix(addr, vlogs.Scheme):
		if _, err := vlogs.ParseAddr(addr); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrStore, err)
		}
		return func(ctx context.Context, dir string, rec storeRecord, write bool) (evidence.Store, error) {
			return vlogs.Open(ctx, vlogs.Options{Addr: rec.Addr, Case: rec.Case, Dir: dir, ReadOnly: !write})
		}, nil
	}
	return nil, fmt.Errorf("%w: %q: want %shost:port[,host:port]", ErrStore, addr, vlogs.Scheme)
}

// readStoreRecord returns the store a workspace records, nil for the
// embedded index.
func readStoreRecord(dir string) (*storeRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, storeFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec storeRecord
	if err := json.Unmarshal(b, &rec); err != nil || rec.Addr == "" || rec.Case == "" {
		return nil, fmt.Errorf("%w: %s: not a store record (%v)", ErrStore, filepath.Join(dir, storeFile), err)
	}
	return &rec, nil
}

// hasEvidence reports whether dir holds an index or names a store.
func hasEvidence(dir string) bool {
	if info, err := os.Stat(filepath.Join(dir, indexDir)); err == nil && info.IsDir() {
		return true
	}
	info, err := os.Stat(filepath.Join(dir, storeFile))
	return err == nil && info.Mode().IsRegular()
}

// openStore opens the evidence store of the workspace at dir: in memory,
// the remote store it records (or is asked to create), or the index.
func openStore(dir string, write bool, o options) (evidence.Store, error) {
	if o.memory {
		return evidence.NewMemStore(), nil
	}
	var err error
	if o.store, err = storeAsked(dir, o); err != nil {
		return nil, err
	}
	rec, err := readStoreRecord(dir)
	if err != nil {
		return nil, err
	}
	if o.caseOf != "" {
		if rec, err = recordCaseOf(dir, o.caseOf, rec, write); err != nil {
			return nil, err
		}
	}
	switch {
	case rec != nil && o.store != "" && o.store != rec.Addr:
		return nil, fmt.Errorf("%w: %s keeps its events in %s (case %s), not %s", ErrStore, dir, rec.Addr, rec.Case, o.store)
	case rec == nil && o.store != "":
		if !write {
			return nil, fmt.Errorf("%w: %s has no events in %s", ErrStore, dir, o.store)
		}
		if _, err := os.Stat(filepath.Join(dir, indexDir)); err == nil {
			return nil, fmt.Errorf("%w: %s keeps its events in %s already; ingest into a new folder to use %s", ErrStore, dir, indexDir, o.store)
		}
		if rec, err = newStoreRecord(dir, o.store); err != nil {
			return nil, err
		}
	case rec == nil:
		return evidence.Open(filepath.Join(dir, indexDir), evidence.Options{ReadOnly: !write})
	}
	opener, err := remoteOpener(rec.Addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return opener(ctx, dir, *rec, write)
}

// storeAsked is the store a workspace is asked to keep its events in: the
// one its cordon.yaml names (store:) or the one passed (Store, from
// --store), which must then be the same; "" for none.
func storeAsked(dir string, o options) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, configFile)); errors.Is(err, os.ErrNotExist) {
		return o.store, nil
	}
	c, err := LoadConfig(dir, o.shared)
	if err != nil {
		return "", err
	}
	switch {
	case c.Store == "":
		return o.store, nil
	case c.trust != "":
		return "", fmt.Errorf("%w: %s names store %s, and another user could have written it: a store is taken from a configuration only its owner can write", ErrStore, filepath.Join(dir, configFile), c.Store)
	case o.store != "" && o.store != c.Store:
		return "", fmt.Errorf("%w: --store %s and store: %s in %s disagree: drop one, or make them the same", ErrStore, o.store, c.Store, filepath.Join(dir, configFile))
	}
	return c.Store, nil
}

// newStoreRecord names a new case on the store at addr and records it in
// the workspace before any event is written there.
func newStoreRecord(dir, addr string) (*storeRecord, error) {
	if _, err := remoteOpener(addr); err != nil {
		return nil, err
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return nil, err
	}
	rec := &storeRecord{Addr: addr, Case: "case-" + hex.EncodeToString(b[:])}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, storeFile), append(data, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("record the store: %w", err)
	}
	return rec, nil
}

// StoreAddr is where the workspace's events live: "" for the index in its
// folder.
func (w *Workspace) StoreAddr() string {
	rec, err := readStoreRecord(w.Dir)
	if err != nil || rec == nil {
		return ""
	}
	return rec.Addr
}
