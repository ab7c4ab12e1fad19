package incident

import (
	"context"
	"fmt"
	"time"

	"github.com/cordon-ir/cordon/journal"
)

// The case journal's use cases for the readers above the case: what they
// read of it, and the entries they record. None of them holds the journal.

// JournalEntries are the journal's entries, oldest first.
func (w *Workspace) JournalEntries() ([]journal.Entry, error) {
	entries, err := w.journal.Entries()
	if err != nil {
		return nil, fmt.Errorf("read journal: %w", err)
	}
	return entries, nil
}

// VerifyJournal checks the journal's hash chain (and its signed
// checkpoints).
func (w *Workspace) VerifyJournal() (journal.Verification, error) {
	v, err := w.journal.Verify()
	if err != nil {
		return v, fmt.Errorf("verify journal: %w", err)
	}
	return v, nil
}

// JournalSnapshot is the journal as stored between two appends: its
// entries' bytes and the head they end at (a bundle carries them).
func (w *Workspace) JournalSnapshot() (entries, head []byte, err error) {
	return w.journal.Snapshot()
}

// Writable says why the journal would refuse an entry, or nil: a command
// asks before it shows a plan it could not record.
func (w *Workspace) Writable() error { return w.journal.Writable() }

// Now is the case's clock: wall time, or scenario time in a drill.
func (w *Workspace) Now() time.Time { return w.journal.Now() }

// SetClock makes now the case's clock: a drill's scenario time stamps
// what is journaled from here on.
func (w *Workspace) SetClock(now func() time.Time) { w.journal.SetClock(now) }

// SignJournal signs a checkpoint of the journal with s every n entries.
func (w *Workspace) SignJournal(s *journal.Signer, n int) { w.journal.SignEvery(s, n) }

// SealJournal signs a last checkpoint, when the journal is signed.
func (w *Workspace) SealJournal(ctx context.Context, actor journal.Actor) error {
	return w.journal.Seal(ctx, actor)
}

// RecordUnredacted journals that an output (what) is written with the
// secrets the evidence holds: none is written unrecorded.
func (w *Workspace) RecordUnredacted(ctx context.Context, actor journal.Actor, what string) (journal.Entry, error) {
	return w.journal.Append(ctx, journal.Entry{Actor: actor, Type: journal.EntryUnredactedOutput,
		Text: what + " written unredacted: it shows every secret the evidence holds (credentials, tokens, keys the agent read or used)"})
}

// RecordBundle journals a bundle written, as text and the fields of
// payload.
func (w *Workspace) RecordBundle(ctx context.Context, actor journal.Actor, text string, payload any) (journal.Entry, error) {
	return w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntryBundleWritten, Text: text}, payload)
}

// RecordEvaluation journals a containment evaluation scored on the case,
// as text and the fields of payload.
func (w *Workspace) RecordEvaluation(ctx context.Context, actor journal.Actor, text string, payload any) (journal.Entry, error) {
	return w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntryEvaluationScored, Text: text}, payload)
}

// RecordDrill journals a drill's entry (started, inject, answer) stamped
// at at, or by the case's clock when at is zero.
func (w *Workspace) RecordDrill(ctx context.Context, e journal.Entry, at time.Time) (journal.Entry, error) {
	switch e.Type {
	case journal.EntryDrillStarted, journal.EntryDrillInject, journal.EntryDrillAnswer:
	default:
		return journal.Entry{}, fmt.Errorf("record drill: %q is not a drill's entry", e.Type)
	}
	if at.IsZero() {
		return w.journal.Append(ctx, e)
	}
	return w.journal.AppendAt(ctx, e, at)
}
