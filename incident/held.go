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
// holds it (a following ingest) and does not serve reads of it.
var ErrHeld = errors.New("the index is held by another process")

// OpenHeld opens a workspace whose index another process holds — a
// following ingest, which keeps the detectors' answer after each round
// (engine/result.gob) and serves reads of its index (reads.json) — to
// read that answer: the findings, the ranking and the Assessment, as of
// the follower's last round, with the journal as it is now, and the
// evidence through the follower. When the follower serves no reads (an
// older cordon, or it is gone and left the index locked), what needs the
// index (a search, a check's queries, a subject's sessions) returns
// ErrHeld. It fails when no answer is kept.
func OpenHeld(dir string, opts ...Option) (*Workspace, error) {
	w, err := OpenCase(dir, opts...)
	if err != nil {
		return nil, err
	}
	// when it was kept: taken before it is read, so a newer answer
	// renamed over it in between makes this time older, never newer
	info, err := os.Stat(filepath.Join(dir, engineDir, resultFile))
	if err != nil {
		return nil, fmt.Errorf("%w, and it keeps no detectors' result yet: %v", ErrHeld, err)
	}
	// read once, here: the follower renames a newer answer over it while
	// this process reads, and one read of the head and another of the
	// whole would take two answers for one
	k, err := readKept(dir, nil)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("%w, and it keeps no detectors' result yet: %v", ErrHeld, err)
	case err != nil:
		return nil, fmt.Errorf("%w, and its kept result cannot be read: %v", ErrHeld, err)
	}
	hs := heldStore{}
	hs.r, w.heldReads = dialReads(dir)
	w.store, w.held, w.heldAt, w.heldForOrder = hs, k.Meta.Evidence, info.ModTime(), k.Meta.HeldForOrder
	// the follow's answer is of the evidence as it holds it, which may
	// leave events held for order out (HeldForOrder says how many); it
	// must be of the rules, version and redaction key in force
	if meta, ok := w.resultMeta(); ok {
		meta.HeldForOrder = k.Meta.HeldForOrder
		if k.Meta == meta {
			w.scanned, w.findingsKey = k.result(), w.held
		} else {
			w.stale = staleWhy(k.Meta, meta)
		}
	}
	return w, nil
}

// heldStore stands for the index of a held workspace: its reads go to the
// follower that holds it (r), or are ErrHeld when it serves none; every
// write is ErrHeld.
type heldStore struct {
	r readCloser
}

type readCloser interface {
	evidence.Reader
	Close() error
}

func (h heldStore) Search(ctx context.Context, req evidence.Request) (*evidence.Hits, error) {
	if h.r == nil {
		return nil, ErrHeld
	}
	return h.r.Search(ctx, req)
}
func (h heldStore) Page(ctx context.Context, req evidence.PageRequest) (*evidence.Page, error) {
	if h.r == nil {
		return nil, ErrHeld
	}
	return h.r.Page(ctx, req)
}
func (h heldStore) Facet(ctx context.Context, q evidence.Query, since, until time.Time, field string, size int) ([]evidence.Count, error) {
	if h.r == nil {
		return nil, ErrHeld
	}
	return h.r.Facet(ctx, q, since, until, field, size)
}
func (h heldStore) Get(ctx context.Context, id string) (evidence.Event, error) {
	if h.r == nil {
		return evidence.Event{}, ErrHeld
	}
	return h.r.Get(ctx, id)
}
func (h heldStore) Counts() evidence.Counts {
	if h.r == nil {
		return evidence.Counts{}
	}
	return h.r.Counts()
}
func (heldStore) Index(context.Context, []evidence.Event, map[string][]byte) (int, error) {
	return 0, ErrHeld
}
func (heldStore) State(string) ([]byte, error)                           { return nil, ErrHeld }
func (heldStore) Replace(context.Context, []evidence.Event) (int, error) { return 0, ErrHeld }
func (heldStore) Sync(context.Context) error                             { return ErrHeld }
func (h heldStore) Close() error {
	if h.r == nil {
		return nil
	}
	return h.r.Close()
}

// isHeld reports a workspace opened by OpenHeld.
func (w *Workspace) isHeld() bool {
	_, ok := w.store.(heldStore)
	return ok
}

// HeldAt is when the answer an OpenHeld workspace reads was kept (zero
// for a workspace opened with its index).
func (w *Workspace) HeldAt() time.Time { return w.heldAt }

// HeldForOrder counts the events the follower had stored and held for
// order, not yet in the answer a held workspace reads.
func (w *Workspace) HeldForOrder() int64 { return w.heldForOrder }

// HeldReads says why a held workspace cannot read the evidence through
// its follower ("" when it can, or the workspace is not held).
func (w *Workspace) HeldReads() string { return w.heldReads }

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
