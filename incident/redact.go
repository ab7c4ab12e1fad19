package incident

import (
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"

	"github.com/cordon-ir/cordon/redact"
)

// redactKeyFile holds the key of the workspace's redaction placeholders.
const redactKeyFile = "redact.key"

// Redactor returns a fresh redactor for one output of the case (a report,
// a bundle, an export). Its placeholders are keyed by the workspace's own
// key, made when the workspace is opened for writing (or by the first
// output that needs it): the same secret has the same placeholder in every
// output of the case, and none of them can be traced back to it without
// the workspace. Stable says whether they are: a workspace that
// cannot be written (read-only media) with no key yet gets a key for this
// output only.
func (w *Workspace) Redactor() (r *redact.Redactor, stable bool) {
	if r, ok := w.keptRedactor(); ok {
		return r, true
	}
	path := filepath.Join(w.Dir, redactKeyFile)
	key := make([]byte, 32)
	rand.Read(key)
	// Written whole under another name, then linked into place: a reader
	// never sees half a key, and of two outputs making one, one wins.
	tmp, err := os.CreateTemp(w.Dir, ".redact-*")
	if err != nil {
		return redact.Keyed(key), false
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(key)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, os.ErrExist) {
		if won, rerr := os.ReadFile(path); rerr == nil && len(won) >= 32 {
			return redact.Keyed(won), true
		}
	}
	return redact.Keyed(key), err == nil
}

// keptRedactor is the redactor of the key the workspace keeps, if it
// keeps one.
func (w *Workspace) keptRedactor() (*redact.Redactor, bool) {
	if key, err := os.ReadFile(filepath.Join(w.Dir, redactKeyFile)); err == nil && len(key) >= 32 {
		return redact.Keyed(key), true
	}
	return nil, false
}

// scanRedactor names the keys the detectors' pass finds, and never writes:
// the pass runs in the background of a console, which must not be making
// files in the workspace as it closes. A workspace opened for writing made
// its key when it was opened; one opened read-only with no key yet gets a
// key for this pass only (its placeholders then differ from a later
// output's).
func (w *Workspace) scanRedactor() *redact.Redactor {
	if r, ok := w.keptRedactor(); ok {
		return r
	}
	key := make([]byte, 32)
	rand.Read(key)
	return redact.Keyed(key)
}
