package incident

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// attributor attributes events as they are ingested, with an identity map
// that grows as session records stream past. A session record that arrives
// after proxy or sensor events it may concern (ledger ingested last) marks
// the time from which those must be attributed again.
type attributor struct {
	id *attribution.Identity
	// seenOther: proxy, sensor or audit-log events are in the store or went past.
	seenOther bool
	// since is the earliest session record that may change an attribution
	// already made; zero when none.
	since time.Time
	// dir is the workspace's folder, where since is written before the
	// record that set it can be stored (attributePending); err is the
	// first failure to write it
	dir string
	err error
}

// attributePending is the file that says from when the events must be
// attributed again. An ingest writes it before it stores a session record
// that may change attributions already made, and Attribute removes it once
// it has attributed them again. An ingest killed in between has stored the
// record (its file is then read to its end, and the record not read
// again): the next ingest finds the file and attributes from its time, so
// no crash leaves events attributed without the records that concern them.
const attributePending = "attribute-pending"

// setSince moves since to t when t is earlier, writing it down first.
func (a *attributor) setSince(t time.Time) {
	if !a.since.IsZero() && !t.Before(a.since) {
		return
	}
	a.since = t
	if a.dir == "" || a.err != nil {
		return
	}
	b, _ := t.UTC().MarshalText()
	a.err = writeAtomic(filepath.Join(a.dir, attributePending), b)
}

// pendingSince is the time attributePending says (zero: no such file).
func pendingSince(dir string) time.Time {
	b, err := os.ReadFile(filepath.Join(dir, attributePending))
	if err != nil {
		return time.Time{}
	}
	var t time.Time
	if t.UnmarshalText(bytes.TrimSpace(b)) != nil {
		// unreadable: everything again, which is what it stood for at worst
		return time.Unix(0, 0)
	}
	return t
}

func (w *Workspace) newAttributor(ctx context.Context) (*attributor, error) {
	id, err := attribution.SessionIdentity(ctx, w.store)
	if err != nil {
		return nil, err
	}
	// the files ingested before (read to their end, so not read again)
	// showed credentials changing hands: this ingest's events are
	// attributed knowing it, as one ingest of every file would
	if err := id.LearnStored(ctx, evidence.StoreSource{Store: w.store}, time.Time{}); err != nil {
		return nil, err
	}
	w.journaledExecs(id)
	c := w.store.Counts()
	other := c.Fields["source"][evidence.SourceProxy] + c.Fields["source"][evidence.SourceSensor] + c.Fields["source"][evidence.SourceAudit]
	a := &attributor{id: id, seenOther: other > 0}
	// an ingest killed before it attributed again what its records concern
	a.since = pendingSince(w.Dir)
	if w.write {
		a.dir = w.Dir
	}
	return a, nil
}

// prepare is called on every event before it is indexed.
func (a *attributor) prepare(ev *evidence.Event) {
	if ev.Source == evidence.SourceLedger {
		a.id.FlagSession(ev)
		if from, ok := a.id.ObserveFrom(ev); ok && a.seenOther {
			a.setSince(from)
		}
		return
	}
	a.seenOther = true
	if from, ok := a.id.ObserveFrom(ev); ok {
		// a responder's exec: what it started may already be stored
		a.setSince(from)
	}
	attribution.Apply(ev, a.id.Attribute(ev))
	if a.id.Learn(ev) {
		// a credential changed hands: its later uses already stored from
		// outside the sandboxes are attributed again
		a.setSince(ev.Time)
	}
}

// AttributionResult says what a re-attribution changed.
type AttributionResult struct {
	Checked, Changed int
}

// Attribute re-attributes every proxy, sensor and audit-log event from since on (zero:
// all) with the identity map the store holds now, rewriting only the events
// whose agent changes. Ingest does this itself when session records arrive
// after the events they concern; `cordon attribute` does it on demand.
func (w *Workspace) Attribute(ctx context.Context, since time.Time) (AttributionResult, error) {
	var res AttributionResult
	if !w.write {
		return res, fmt.Errorf("incident opened read-only")
	}
	id, err := attribution.SessionIdentity(ctx, w.store)
	if err != nil {
		return res, err
	}
	w.journaledExecs(id)
	var batch []evidence.Event
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		n, err := w.store.Replace(ctx, batch)
		res.Changed += n
		if err == nil && w.intaking != nil {
			w.intaking.patch(batch)
		}
		batch = batch[:0]
		return err
	}
	// what the events before since showed of credentials changing hands
	// (the ingest learnt it as it went) decides the uses after since
	if !since.IsZero() {
		if err := id.LearnStored(ctx, evidence.StoreSource{Store: w.store}, since); err != nil {
			return res, err
		}
	}
	q := evidence.Or(evidence.Terms("source", evidence.SourceProxy, evidence.SourceSensor, evidence.SourceAudit),
		evidence.And(evidence.Term("source", evidence.SourceLedger), evidence.Terms("kind", evidence.KindToolCall, evidence.KindToolResult)))
	err = evidence.StoreSource{Store: w.store, Since: since}.Each(ctx, q, func(ev evidence.Event) error {
		res.Checked++
		if id.Again(&ev) {
			batch = append(batch, ev)
			if len(batch) >= 2000 {
				return flush()
			}
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if err := flush(); err != nil {
		return res, err
	}
	// what an ingest left to attribute again is done, if it was from since on
	if p := pendingSince(w.Dir); !p.IsZero() && !p.Before(since) {
		if err := os.Remove(filepath.Join(w.Dir, attributePending)); err != nil && !os.IsNotExist(err) {
			return res, err
		}
	}
	return res, nil
}
