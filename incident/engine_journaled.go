package incident

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/cordon-ir/cordon/detect"
)

// A findings_changed entry says what a round changed against the findings
// the journal last named: their Marks are kept in engine/journaled.json,
// written after each entry, and read by the first round of the next
// process. They used to be read from the kept result (engine/result.gob),
// but a follow keeps that only when it can afford to (keepLive): a result
// a round or more behind the journal would make the next process journal
// again changes the journal already holds.
//
// The entry is appended before the file is written, so a crash between
// the two makes the next process journal that change a second time rather
// than never: a repeated entry says what it repeats, a lost one hides a
// finding from the record.

// journaledFile holds the Marks of the findings the journal last named.
const journaledFile = "journaled.json"

// journaledVersion is the file's layout.
const journaledVersion = 1

type journaledMarks struct {
	Version int                    `json:"version"`
	Marks   map[string]detect.Mark `json:"marks"`
}

// journaledLocked is the Marks of the findings the journal last named:
// this process's, else the file's, else (a workspace a version before the
// file wrote) the kept result's. Under journaledMu.
func (w *Workspace) journaledLocked() map[string]detect.Mark {
	if w.journaled != nil {
		return w.journaled
	}
	b, err := os.ReadFile(filepath.Join(w.Dir, engineDir, journaledFile))
	var j journaledMarks
	if err == nil && json.Unmarshal(b, &j) == nil && j.Version == journaledVersion && j.Marks != nil {
		w.journaled = j.Marks
		return w.journaled
	}
	w.journaled = detect.Marks(w.previousFindings())
	return w.journaled
}

// loadJournaled reads the Marks of the findings the journal last named,
// if this process has not yet: before a round keeps its result, which a
// workspace without the file reads them from.
func (w *Workspace) loadJournaled() {
	w.journaledMu.Lock()
	defer w.journaledMu.Unlock()
	w.journaledLocked()
}

// keepJournaled records marks as the findings the journal now names.
// Under journaledMu.
func (w *Workspace) keepJournaled(marks map[string]detect.Mark) error {
	w.journaled = marks
	b, err := json.Marshal(journaledMarks{Version: journaledVersion, Marks: marks})
	if err != nil {
		return err
	}
	return w.keepFile(filepath.Join(w.Dir, engineDir, journaledFile), b)
}
