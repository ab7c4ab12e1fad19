package incident

import (
	"context"
	"fmt"
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
	return &attributor{id: id, seenOther: other > 0}, nil
}

// prepare is called on every event before it is indexed.
func (a *attributor) prepare(ev *evidence.Event) {
	if ev.Source == evidence.SourceLedger {
		a.id.FlagSession(ev)
		if from, ok := a.id.ObserveFrom(ev); ok && a.seenOther && (a.since.IsZero() || from.Before(a.since)) {
			a.since = from
		}
		return
	}
	a.seenOther = true
	if from, ok := a.id.ObserveFrom(ev); ok && (a.since.IsZero() || from.Before(a.since)) {
		// a responder's exec: what it started may already be stored
		a.since = from
	}
	attribution.Apply(ev, a.id.Attribute(ev))
	if a.id.Learn(ev) && (a.since.IsZero() || ev.Time.Before(a.since)) {
		// a credential changed hands: its later uses already stored from
		// outside the sandboxes are attributed again
		a.since = ev.Time
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
	return res, flush()
}
