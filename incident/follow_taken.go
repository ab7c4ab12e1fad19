package incident

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// A following ingest hands the detectors the events its store took in a
// round (ingest.Options.Taken), as the store keeps them, so that a round
// adds them to the pass without reading them back from the index. The
// round reads the index as before (eventsAfter) when what it was handed
// may not be what the index holds:
//   - the round read a record the index held already (a copy, a file
//     read again): the events handed are then more than it stored;
//   - a record replaced a stored event, or held text that is not UTF-8
//     (the index keeps JSON, which rewrites such bytes);
//   - the pass holds back events the round before read from the index
//     after a replay, which only the index has;
//   - the events are on VictoriaLogs, where another writer may add to
//     the case unseen.
// Either way a round whose events sort before the last the pass took
// replays, as before.

// roundTaken collects what the store took during a round.
type roundTaken struct {
	mu      sync.Mutex
	batches [][]evidence.Event
	why     string // why the round reads the index instead ("" when not)
}

// take is the ingest's Options.Taken.
func (r *roundTaken) take(events, replaced []evidence.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.why != "":
	case len(replaced) > 0:
		r.why = "a record replaced a stored event"
	default:
		for i := range events {
			if !events[i].ValidText() {
				r.why = fmt.Sprintf("event %s holds text that is not UTF-8", events[i].ID)
				r.batches = nil
				return
			}
		}
		r.batches = append(r.batches, events)
	}
}

// drain gives the round's events in time order (ties by id), or why they
// cannot stand for the index's, and begins the next round. A nil
// roundTaken is a follow whose ingest hands nothing over.
func (r *roundTaken) drain() ([]evidence.Event, string) {
	if r == nil {
		return nil, "the events are on VictoriaLogs"
	}
	r.mu.Lock()
	batches, why := r.batches, r.why
	r.batches, r.why = nil, ""
	r.mu.Unlock()
	if why != "" {
		return nil, why
	}
	if len(batches) == 1 {
		return inTimeOrder(batches[0]), "" // the batch is the round's own
	}
	return inTimeOrder(slices.Concat(batches...)), ""
}

// inTimeOrder gives evs by time, ties by id (the index's order): evs as
// it is when it is in that order, else a sorted copy.
func inTimeOrder(evs []evidence.Event) []evidence.Event {
	order := timeOrder(evs)
	if slices.IsSorted(order) {
		return evs
	}
	out := make([]evidence.Event, len(evs))
	for i, o := range order {
		out[i] = evs[o]
	}
	return out
}

// roundEvents is what a round adds to the pass: the events held back
// before and those stored in the round after the pass's last, in time
// order; or why a replay is needed ("", nil when it is not). from says
// where they were read: the ingest's hand or the index.
func (w *Workspace) roundEvents(ctx context.Context, lp *livePass, taken []evidence.Event, takenWhy string, fresh int64) (evs []evidence.Event, why, from string, err error) {
	last := lp.pass.Last()
	switch {
	case takenWhy != "":
	case int64(len(taken)) != fresh:
		// a record the index held already (a copy, a file read again)
		takenWhy = fmt.Sprintf("the ingest handed %d events, the round stored %d", len(taken), fresh)
	case int64(len(lp.pending)) != lp.held:
		takenWhy = "the pass holds back events only the index has"
	}
	if takenWhy != "" {
		evs, why, err = w.eventsAfter(ctx, last, fresh+lp.held)
		return evs, why, "the index (" + takenWhy + ")", err
	}
	late := 0
	for i := range taken {
		if !detect.Before(&last, &taken[i]) {
			late++
		}
	}
	if late > 0 {
		return nil, fmt.Sprintf("%d of the round's %d events are earlier than the last one the detectors took (%s)",
			late, fresh+lp.held, last.Time.Format(time.RFC3339Nano)), "", nil
	}
	if len(lp.pending) == 0 {
		return taken, "", "the ingest", nil
	}
	evs = make([]evidence.Event, 0, len(lp.pending)+len(taken))
	return inTimeOrder(append(append(evs, lp.pending...), taken...)), "", "the ingest", nil
}
