package incident

import (
	"bytes"
	"testing"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// EvidenceStore is the workspace's store, for incident's own tests, which
// call the functions below the use cases (Scan, LoadCase, RunCheck) on it.
// Nothing outside incident reaches the store.
func (w *Workspace) EvidenceStore() evidence.Store { return w.store }

// ReplaySource is what a replay reads: the replay log when it holds the
// index's events, else the index (replaySource), for the benchmarks.
func (w *Workspace) ReplaySource() detect.Source { return w.replaySource() }

// StoredAttributions is each stored event's agent, attribution and tags,
// by id (storedAttributions).
func StoredAttributions(t testing.TB, w *Workspace) map[string]string {
	return storedAttributions(t, w)
}

// JournalPath is the journal's file, for tests that tamper with it.
func (w *Workspace) JournalPath() string { return w.journal.Path() }

// EncodeKept is the kept result's encoding of r, as a follow's round
// writes it (keepScan less the file), for the benchmarks.
func EncodeKept(r detect.Result) ([]byte, error) {
	var b bytes.Buffer
	err := writeKept(&b, keep(resultMeta{}, r))
	return b.Bytes(), err
}
