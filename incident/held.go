package incident

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// ErrHeld is returned for what needs the index while another process
// holds it (a following ingest): its kept answer is all there is to read.
var ErrHeld = errors.New("the index is held by another process")

// OpenHeld opens a workspace whose index another process holds — a
// following ingest, which keeps the detectors' answer after each round
// (engine/result.gob) — to read that answer: the findings, the ranking
// and the Assessment, as of the follower's last round, with the journal
// as it is now. What needs the index (a search, a check's queries, a
// subject's sessions) returns ErrHeld. It fails when no answer is kept.
func OpenHeld(dir string, opts ...Option) (*Workspace, error) {
	w, err := OpenCase(dir, opts...)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(dir, engineDir, resultFile)
	k, err := readKept(dir, func(resultMeta) bool { return false })
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w, and it keeps no detectors' result yet: %v", ErrHeld, err)
	case err != nil && !errors.Is(err, errOtherMeta):
		return nil, fmt.Errorf("%w, and its kept result cannot be read: %v", ErrHeld, err)
	}
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	w.store, w.held, w.heldAt = heldStore{}, k.Meta.Evidence, info.ModTime()
	return w, nil
}

// heldStore stands for the index of a held workspace: every read of it
// is ErrHeld.
type heldStore struct{}

func (heldStore) Search(context.Context, evidence.Request) (*evidence.Hits, error) {
	return nil, ErrHeld
}
func (heldStore) Page(context.Context, evidence.PageRequest) (*evidence.Page, error) {
	return nil, ErrHeld
}
func (heldStore) Facet(context.Context, evidence.Query, time.Time, time.Time, string, int) ([]evidence.Count, error) {
	return nil, ErrHeld
}
func (heldStore) Get(context.Context, string) (evidence.Event, error) {
	return evidence.Event{}, ErrHeld
}
func (heldStore) Counts() evidence.Counts { return evidence.Counts{} }
func (heldStore) Index(context.Context, []evidence.Event, map[string][]byte) (int, error) {
	return 0, ErrHeld
}
func (heldStore) State(string) ([]byte, error)                           { return nil, ErrHeld }
func (heldStore) Replace(context.Context, []evidence.Event) (int, error) { return 0, ErrHeld }
func (heldStore) Sync(context.Context) error                             { return ErrHeld }
func (heldStore) Close() error                                           { return nil }

// isHeld reports a workspace opened by OpenHeld.
func (w *Workspace) isHeld() bool {
	_, ok := w.store.(heldStore)
	return ok
}

// HeldAt is when the answer an OpenHeld workspace reads was kept (zero
// for a workspace opened with its index).
func (w *Workspace) HeldAt() time.Time { return w.heldAt }

// HeldUnmatched counts the suppressions with a query that a held
// workspace left unmatched (they need the index): the findings they would
// cover are listed as not suppressed.
func (w *Workspace) HeldUnmatched() int { return len(w.heldUnmatched) }

// evidence is the evidence key: of the index, or for a held workspace,
// the one its follower's kept answer names.
func (w *Workspace) evidence() string {
	if w.isHeld() {
		return w.held
	}
	return evidenceKey(w.store.Counts())
}
