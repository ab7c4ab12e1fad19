package incident

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/journal"
)

// FindingsChange is what one round of the detectors changed against the
// result kept before it: findings created, updated (the same id, its
// episode grown or its severity changed) and withdrawn (gone: a late
// session record moved its events, a rule changed), by id.
type FindingsChange struct {
	Created   []string `json:"created"`
	Updated   []string `json:"updated"`
	Withdrawn []string `json:"withdrawn"`
	Total     int      `json:"total"`
}

// Empty reports a round that changed nothing.
func (c FindingsChange) Empty() bool {
	return len(c.Created)+len(c.Updated)+len(c.Withdrawn) == 0
}

func (c FindingsChange) String() string {
	return fmt.Sprintf("%d finding(s): %d created, %d updated, %d withdrawn", c.Total, len(c.Created), len(c.Updated), len(c.Withdrawn))
}

// Detect runs a round of the detectors over the evidence as it is now
// (the kept result when it is still the evidence's), keeps the result,
// and journals what changed since the findings the journal last named,
// one entry per round (findings_changed), when anything did.
func (w *Workspace) Detect(ctx context.Context, actor journal.Actor) (FindingsChange, error) {
	w.loadJournaled()
	r, err := w.scan(ctx)
	if err != nil {
		return FindingsChange{}, err
	}
	return w.journalChange(ctx, actor, r.Findings, detect.Marks(r.Findings))
}

// changeOf is what after (whose marks are marks) changes against the
// findings the journal last named, journaling nothing: a following
// round shows it before it journals it (journalChange, next).
func (w *Workspace) changeOf(after []detect.Finding, marks map[string]detect.Mark) FindingsChange {
	w.journaledMu.Lock()
	defer w.journaledMu.Unlock()
	return w.changeLocked(after, marks)
}

// changeLocked is changeOf, journaledMu held.
func (w *Workspace) changeLocked(after []detect.Finding, marks map[string]detect.Mark) FindingsChange {
	c := detect.DiffMarks(w.journaledLocked(), after, marks)
	return FindingsChange{Created: c.Created, Updated: c.Updated, Withdrawn: c.Withdrawn, Total: len(after)}
}

// journalChange journals what a round changed against the findings the
// journal last named (findings_changed, engine_journaled.go), when it
// changed anything.
func (w *Workspace) journalChange(ctx context.Context, actor journal.Actor, after []detect.Finding, marks map[string]detect.Mark) (FindingsChange, error) {
	w.journaledMu.Lock()
	defer w.journaledMu.Unlock()
	ch := w.changeLocked(after, marks)
	if ch.Empty() || !w.write {
		return ch, nil
	}
	text := ch.String()
	for _, part := range []struct {
		what string
		ids  []string
	}{{"created", ch.Created}, {"updated", ch.Updated}, {"withdrawn", ch.Withdrawn}} {
		if len(part.ids) > 0 {
			text += "; " + part.what + " " + strings.Join(capIDs(part.ids, 10), " ")
		}
	}
	if _, err := w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntryFindingsChanged, Text: text}, ch); err != nil {
		return ch, err
	}
	return ch, w.keepJournaled(marks)
}

// previousFindings are the findings of the result kept before this round,
// whatever evidence it was of (nil: none kept).
func (w *Workspace) previousFindings() []detect.Finding {
	k, err := readKept(w.Dir, nil)
	if err != nil {
		return nil
	}
	return k.Findings
}

// capIDs lists at most n ids, then how many more.
func capIDs(ids []string, n int) []string {
	if len(ids) <= n {
		return ids
	}
	return append(slices.Clone(ids[:n]), fmt.Sprintf("(+%d)", len(ids)-n))
}
