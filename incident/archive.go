package incident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
)

// An archive is a workspace whose events are a fleet's whole stream, kept
// in a store outside the folder (cordon archive; docs/scale.md): events
// are added as they are read, with no file in between, and a case is
// later opened on them from another folder (CaseOf) without copying
// them.

// ErrArchive: a workspace cannot archive or be read as an archive.
var ErrArchive = errors.New("archive")

// Archiver adds events to a workspace as they come from a stream.
type Archiver struct {
	w    *Workspace
	attr *attributor
}

// Archiver readies w, opened for writing on a store outside its folder,
// to take events from a stream. The Bleve index is refused: a fleet's
// weeks are what the store outside is for.
func (w *Workspace) Archiver(ctx context.Context) (*Archiver, error) {
	if !w.write {
		return nil, errors.New("incident opened read-only")
	}
	if rec, err := readStoreRecord(w.Dir); err != nil || rec == nil {
		return nil, fmt.Errorf("%w: %s keeps its events in its own index: an archive is made on a store (--store victorialogs://host:port) (%v)", ErrArchive, w.Dir, err)
	}
	attr, err := w.newAttributor(ctx)
	if err != nil {
		return nil, err
	}
	return &Archiver{w: w, attr: attr}, nil
}

// StoreCase is the name of the workspace's case on its store ("" for the
// index in the folder): an archive's consumer is named after it, so that
// the archive started again goes on where it stopped.
func (w *Workspace) StoreCase() string {
	rec, err := readStoreRecord(w.Dir)
	if err != nil || rec == nil {
		return ""
	}
	return rec.Case
}

// Add attributes events as an ingest does and adds those the case does
// not hold yet, with state; it returns how many were new once the store
// has them, searchable, and state is recorded with them. Until then
// nothing read from a stream may be acknowledged.
func (a *Archiver) Add(ctx context.Context, events []evidence.Event, state map[string][]byte) (int, error) {
	for i := range events {
		a.attr.prepare(&events[i])
	}
	return a.w.store.Index(ctx, events, state)
}

// State is a value recorded by Add, nil if none.
func (a *Archiver) State(key string) ([]byte, error) { return a.w.store.State(key) }

// Close re-attributes what session records that came late concern, and
// journals what the run archived, saying where from.
func (a *Archiver) Close(ctx context.Context, text string) error {
	var err error
	if !a.attr.since.IsZero() {
		_, err = a.w.Attribute(ctx, a.attr.since)
	}
	if text != "" {
		if _, jerr := a.w.journal.Append(ctx, journal.Entry{Actor: journal.CurrentActor(journal.ViaCLI), Type: journal.EntryNote, Text: text}); err == nil {
			err = jerr
		}
	}
	return err
}

// CaseOf makes a new workspace read the events of the case the workspace
// at archive keeps on its store: its journal, marks, engine state and
// checkpoints are its own, its events are the archive's, read in place
// while the archive goes on adding to them. An existing workspace keeps
// the store it has.
func CaseOf(archive string) Option {
	return func(o *options) { o.caseOf = archive }
}

// recordCaseOf records in dir the store record of the workspace at
// archive, unless dir has it already (had, the record dir has).
func recordCaseOf(dir, archive string, had *storeRecord, write bool) (*storeRecord, error) {
	a, aerr := filepath.Abs(archive)
	d, derr := filepath.Abs(dir)
	if aerr != nil || derr != nil || a == d {
		return nil, fmt.Errorf("%w: a case on the archive %s is made in another folder", ErrArchive, archive)
	}
	rec, err := readStoreRecord(archive)
	if err != nil {
		return nil, err
	}
	switch {
	case rec == nil:
		return nil, fmt.Errorf("%w: %s keeps no events on a store (no %s)", ErrArchive, archive, storeFile)
	case had != nil && *had != *rec:
		return nil, fmt.Errorf("%w: %s reads case %s on %s, not the archive's", ErrArchive, dir, had.Case, had.Addr)
	case had != nil:
		return had, nil
	case !write:
		return nil, fmt.Errorf("%w: %s has no events yet", ErrStore, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, indexDir)); err == nil {
		return nil, fmt.Errorf("%w: %s keeps its events in %s already", ErrStore, dir, indexDir)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, storeFile), append(data, '\n'), 0o600); err != nil {
		return nil, fmt.Errorf("record the store: %w", err)
	}
	return rec, nil
}

// EachArchived hands fn every event of the case the workspace at archive
// keeps on its store, oldest first, reading the store directly (the
// archive's folder is held by the archive while it runs; nothing in it
// is written): what a slice of the archive is chosen from.
func EachArchived(ctx context.Context, archive string, fn func(evidence.Event) error) error {
	rec, err := readStoreRecord(archive)
	switch {
	case err != nil:
		return err
	case rec == nil:
		return fmt.Errorf("%w: %s keeps no events on a store (no %s)", ErrArchive, archive, storeFile)
	}
	open, err := remoteOpener(rec.Addr)
	if err != nil {
		return err
	}
	st, err := open(ctx, archive, *rec, false)
	if err != nil {
		return err
	}
	defer st.Close()
	return evidence.StoreSource{Store: st}.Each(ctx, evidence.All(), fn)
}
