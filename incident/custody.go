package incident

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
)

// Receipt is the payload of an evidence_received entry: what one ingest
// read of one input, with the digest that `cordon evidence verify` checks
// the file against later.
type Receipt struct {
	ingest.Received
	Format    string    `json:"format,omitempty"`
	Records   int       `json:"records"` // events parsed since the file's last entry
	Rejects   int       `json:"rejects"`
	ResumedAt int64     `json:"resumed_at,omitempty"`
	First     time.Time `json:"first,omitzero"` // the span of those events
	Last      time.Time `json:"last,omitzero"`
	Error     string    `json:"error,omitempty"`
	// NoEvents says why the file, read from its start, gave no event
	// though it was not empty (ingest.FileResult.NoEvents): a loss the
	// journal keeps, not only the terminal.
	NoEvents string `json:"no_events,omitempty"`
	// Held is the last line left unread for a later run, where and why
	// (ingest.FileResult.Held).
	Held string `json:"held,omitempty"`
	// From says where evidence kept by Receive came from (a stream, its
	// sequences, the selection), beside the file's own digest.
	From string `json:"from,omitempty"`
}

// GrowthEvery is how often a followed file that keeps growing is journaled
// again: one entry per rotation or change at once, and at most one per this
// much time for lines appended, never one per poll.
const GrowthEvery = 5 * time.Minute

// custody is what the journal last recorded of each input, so that a re-run
// that received nothing new records nothing, and a followed file is
// recorded as GrowthEvery says.
type custody struct {
	loaded bool
	last   map[string]custodyMark // by resolved path
	// pending sums what rounds read since a file's last entry, so that the
	// entry that records its growth counts every record of it.
	pending map[string]Receipt
}

type custodyMark struct {
	r  ingest.Received
	at time.Time
}

// Receipts reads every evidence_received entry of the journal, oldest first.
func (w *Workspace) Receipts() ([]Receipt, []journal.Entry, error) {
	entries, err := w.journal.Entries()
	if err != nil {
		return nil, nil, err
	}
	var out []Receipt
	var from []journal.Entry
	for _, e := range entries {
		if e.Type != journal.EntryEvidenceReceived {
			continue
		}
		var r Receipt
		if json.Unmarshal(e.Payload, &r) != nil {
			continue
		}
		out = append(out, r)
		from = append(from, e)
	}
	return out, from, nil
}

// recordReceipts journals what an ingest round received. With follow set
// a file that only grew waits until GrowthEvery has passed since its last
// entry; final records whatever is still unrecorded (the end of a follow).
func (w *Workspace) recordReceipts(ctx context.Context, actor journal.Actor, from string, res []ingest.FileResult, follow, final bool) error {
	if !w.custody.loaded {
		w.custody.last = map[string]custodyMark{}
		rs, es, err := w.Receipts()
		if err != nil {
			return err
		}
		for i, r := range rs {
			if !r.Stdin {
				w.custody.last[r.Resolved] = custodyMark{r.Received, es[i].Time}
			}
		}
		w.custody.pending = map[string]Receipt{}
		w.custody.loaded = true
	}
	if actor.Name == "" {
		actor = journal.CurrentActor(journal.ViaCLI)
	}
	now := w.journal.Now()
	for _, f := range res {
		r := f.Received
		if r == nil || r.Stdin && r.Read == 0 {
			continue
		}
		rc, waiting := w.custody.pending[r.Resolved]
		if waiting && (rc.Inode != r.Inode || rc.Read > r.Read) {
			// Replaced or cut: what waited describes the file before, and
			// is recorded as it was before this one.
			if err := w.appendReceipt(ctx, actor, rc); err != nil {
				return err
			}
			rc = Receipt{}
		}
		if rc.SHA256 == "" { // the first round since the last entry
			rc.ResumedAt, rc.First = f.ResumedAt, f.First
		}
		rc.Received, rc.Format = *r, f.Format
		rc.Records += f.Events
		rc.Rejects += f.Rejects
		if !f.First.IsZero() && (rc.First.IsZero() || f.First.Before(rc.First)) {
			rc.First = f.First
		}
		if f.Last.After(rc.Last) {
			rc.Last = f.Last
		}
		rc.Error = ""
		if f.Err != nil {
			rc.Error = f.Err.Error()
		}
		rc.NoEvents, rc.Held = f.NoEvents, ""
		if from != "" {
			rc.From = from
		}
		if h := f.Held; h != nil {
			rc.Held = fmt.Sprintf("%s (byte %d, %d bytes): %s", h.Origin, h.Offset, h.Len, h.Reason)
		}
		prev, seen := w.custody.last[r.Resolved]
		if !r.Stdin && seen && !needsReceipt(prev, *r, now, follow && !final) {
			if prev.r.SHA256 != r.SHA256 {
				w.custody.pending[r.Resolved] = rc
			}
			continue
		}
		delete(w.custody.pending, r.Resolved)
		if err := w.appendReceipt(ctx, actor, rc); err != nil {
			return err
		}
	}
	return nil
}

// FlushReceipts journals the growth that is still waiting for GrowthEvery
// (the end of a drill whose evidence kept growing).
func (w *Workspace) FlushReceipts(ctx context.Context, actor journal.Actor) error {
	if actor.Name == "" {
		actor = journal.CurrentActor(journal.ViaCLI)
	}
	paths := slices.Sorted(maps.Keys(w.custody.pending))
	for _, p := range paths {
		if err := w.appendReceipt(ctx, actor, w.custody.pending[p]); err != nil {
			return err
		}
		delete(w.custody.pending, p)
	}
	return nil
}

// appendReceipt journals one receipt and remembers it as the file's last.
func (w *Workspace) appendReceipt(ctx context.Context, actor journal.Actor, rc Receipt) error {
	e, err := w.appendJSON(ctx, journal.Entry{Actor: actor, Type: journal.EntryEvidenceReceived, Text: receiptText(rc)}, rc)
	if err != nil {
		return fmt.Errorf("journal the evidence received: %w", err)
	}
	if !rc.Stdin {
		w.custody.last[rc.Resolved] = custodyMark{rc.Received, e.Time}
	}
	return nil
}

// needsReceipt: the file is not what the journal last recorded. A file
// replaced, rotated or cut is recorded at once; one that only grew, while
// following, once GrowthEvery has passed.
func needsReceipt(prev custodyMark, r ingest.Received, now time.Time, following bool) bool {
	p := prev.r
	if p.SHA256 == r.SHA256 && p.Read == r.Read && p.Inode == r.Inode {
		return false
	}
	grew := p.Inode == r.Inode && r.Read > p.Read
	return !following || !grew || now.Sub(prev.at) >= GrowthEvery
}

// receiptText is the entry's one-line summary.
func receiptText(r Receipt) string {
	name := r.Path // as the responder named it; the payload has it resolved
	if r.Stdin {
		name = "stdin"
	}
	whole := "whole file"
	if !r.ToEnd {
		whole = fmt.Sprintf("first %d of %d bytes", r.Read, r.Size)
	}
	format := r.Format
	if format == "" {
		format = "format unknown"
	}
	s := fmt.Sprintf("%s: %s, %d records, %d rejects, sha256 %s (%s)", name, format, r.Records, r.Rejects, r.SHA256, whole)
	if r.From != "" {
		s += ", from " + r.From
	}
	if r.Error != "" {
		s += ": " + r.Error
	}
	if r.NoEvents != "" {
		s += "; no events: " + r.NoEvents
	} else if r.Held != "" {
		s += "; last line left unread: " + r.Held
	}
	return s
}
