package incident

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
)

// While an ingest follows its inputs, the detectors follow it: one
// detect.Pass is kept for the whole follow, and after each round the
// events the round stored are added to it after the last one it took:
// those the ingest handed over as its store took them (follow_taken.go),
// or, when those may not be what the index holds, read back from it. A
// round of a few appended lines costs those lines and one answer
// (Pass.View), not a pass over the incident; the answer is kept (engine/result.gob) and a
// findings_changed entry journals what it changed, so another process's
// findings, check and subject read it while the follow goes on.
//
// The pass is started again from every stored event (a replay) when a
// round cannot be added after what it holds:
//   - an event of the round sorts before the last one the pass took (a
//     late source, a skewed clock);
//   - a record replaced one stored before (a Kubernetes request's later
//     stage);
//   - the ingest attributed stored events again (a session record arrived
//     after events it concerns; a key changed hands);
//   - the rules, the redaction key or the index mapping changed.
// A replay gives what a one-shot run over the same events gives; it costs
// a pass (≈14 s at a million events), so the round's answer waits for it.

// livePass is the pass a follow keeps, and what it was started for.
type livePass struct {
	pass  *detect.Pass
	meta  resultMeta // what it was started with (its Evidence aside)
	total int64      // the store's events when the pass last caught up
	// logged is the evidence key of the replay log when it holds the
	// events the pass took ("": it does not, and is not extended)
	logged string
	// held counts the stored events after the last one the pass took:
	// held for order, added at a later round; pending is them, in time
	// order, when the round that held them had them in hand
	held    int64
	pending []evidence.Event
	// digests makes each round's Marks from the round before's
	digests detect.Digests
}

// withoutEvidence is what a pass was started for, the evidence aside (a follow's
// rounds change that).
func (m resultMeta) withoutEvidence() resultMeta {
	m.Evidence = ""
	return m
}

// LiveRound says how a round of a following ingest reached its findings.
type LiveRound struct {
	Change FindingsChange
	// Added counts the events added to the kept pass; Replayed says why
	// the pass was started again from every stored event ("" when not).
	Added    int
	Replayed string
	// Read says where the round's events were read: "the ingest" (what
	// its store took, handed over), or "the index (why)" ("" when the
	// round added none or replayed)
	Read string
	// Held counts the events stored and not yet added, waiting for the
	// inputs still writing to go past them (follow_marks.go); HeldFor is
	// the input whose progress they wait for.
	Held    int
	HeldFor string
	Took    time.Duration
}

// followRound brings the detectors up to the evidence after a round of a
// following ingest that stored res; reattributed says the round moved
// stored events between agents. What needs the store as the round left it
// (which events to add, a replay, the replay log) is done before it
// returns; the rest of the round (adding the events, the answer, keeping
// and journaling it) is what it returns, which may run beside the ingest's
// next round (Follow) but not beside another round's.
func (w *Workspace) followRound(ctx context.Context, actor journal.Actor, res []ingest.FileResult, reattributed bool) roundWork {
	start := time.Now()
	var out LiveRound
	failed := func(err error) roundWork {
		out.Took = time.Since(start)
		return func() (LiveRound, func() error, error) { return out, nil, err }
	}
	w.loadJournaled()
	meta, keepable := w.resultMeta()
	counts := w.store.Counts()
	var stored, fresh int64
	for _, r := range res {
		stored += int64(r.Stored)
		fresh += int64(r.New)
	}
	taken, takenWhy := w.taking.drain()
	now := time.Now()
	marks := w.followMarks()
	marks.observe(res, now)
	lp := w.live
	switch {
	case lp == nil:
		out.Replayed = "the follow began"
	case lp.meta.withoutEvidence() != meta.withoutEvidence():
		out.Replayed = "the rules, the redaction key or the index mapping changed"
	case reattributed:
		out.Replayed = "stored events were attributed again"
	case stored > fresh:
		out.Replayed = fmt.Sprintf("%d record(s) replaced events stored before", stored-fresh)
	case counts.Total-lp.total != fresh:
		out.Replayed = fmt.Sprintf("the index holds %d more events, the round stored %d", counts.Total-lp.total, fresh)
	}
	var add []evidence.Event // the round's events the pass takes
	if out.Replayed == "" && fresh+lp.held > 0 {
		evs, why, from, err := w.roundEvents(ctx, lp, taken, takenWhy, fresh)
		if err != nil {
			return failed(err)
		}
		out.Replayed = why
		if why == "" {
			// what the inputs still writing have not gone past waits
			n := len(evs)
			if mark, bounded, by := marks.watermark(now); bounded {
				n = sort.Search(len(evs), func(i int) bool { return !evs[i].Time.Before(mark) })
				if n < len(evs) {
					out.HeldFor = by
				}
			}
			add = evs[:n]
			out.Added, out.Held, out.Read = n, len(evs)-n, from
			lp.held, lp.pending = int64(out.Held), slices.Clone(evs[n:])
			// the log is extended as the store stands now, before the
			// ingest's next round stores more
			lp.logged = w.extendReplayLog(lp.logged, add, lp.held)
		}
	}
	if out.Replayed != "" {
		mark, bounded, by := marks.watermark(now)
		if !bounded {
			mark = time.Time{}
		}
		p, held, pending, err := w.replayPass(ctx, mark)
		if err != nil {
			return failed(err)
		}
		lp = &livePass{pass: p, meta: meta, logged: w.loggedKey(), held: held, pending: pending}
		if held > 0 {
			// the log holds what the pass holds back: a later replay
			// writes it anew
			lp.logged = ""
			out.Held, out.HeldFor = int(held), by
		}
		w.live = lp
		out.Added = int(p.Events())
	}
	var first, last time.Time
	if n := len(lp.pending); n > 0 && int64(n) == lp.held {
		first, last = lp.pending[0].Time, lp.pending[n-1].Time
	}
	marks.held(lp.held, first, last, now)
	lp.total = counts.Total
	key := evidenceKey(counts)
	w.findingsMu.Lock()
	current := w.findingsKey == key && w.scanned.Findings != nil
	total := len(w.scanned.Findings)
	kept := w.scanned.Findings != nil // this process has an answer
	w.findingsMu.Unlock()
	if out.Replayed == "" && out.Added == 0 && (current || fresh > 0 && kept) {
		// nothing new reached the pass: the answer stands, of the
		// evidence as the follow holds it
		w.findingsMu.Lock()
		w.findingsKey = key
		w.findingsMu.Unlock()
		out.Change = FindingsChange{Created: []string{}, Updated: []string{}, Withdrawn: []string{}, Total: total}
		w.flushLive() // the inputs are quiet: the answer waiting is kept now
		out.Took = time.Since(start)
		return func() (LiveRound, func() error, error) { return out, nil, nil }
	}
	before := time.Since(start) // this part of the round
	return func() (LiveRound, func() error, error) {
		began := time.Now()
		for i := range add {
			if err := lp.pass.Add(&add[i]); err != nil {
				out.Took = before + time.Since(began)
				return out, nil, err
			}
		}
		// the answer made from the last round's: only the capability
		// sets of the agents whose capabilities changed are copied
		// (Pass.View, equal to Result); its parts are shared with the
		// next round's, and read only
		r := lp.pass.View().Result
		if r.Findings == nil {
			r.Findings = []detect.Finding{}
		}
		w.findingsMu.Lock()
		w.scanned, w.findingsKey, w.followAnswer = r, key, true
		w.findingsMu.Unlock()
		if keepable {
			// with events held, not of the index as it is: a reader after
			// this process stopped runs the detectors again; one while it
			// follows reads it as the follow's answer
			meta.HeldForOrder = lp.held
			w.keepLive(meta, r)
		}
		// the change is shown first and journaled after, in the round:
		// journaled though the follow was stopped meanwhile, the round's
		// work being done
		marks := lp.digests.Marks(r.Findings)
		out.Change, out.Took = w.changeOf(r.Findings, marks), before+time.Since(began)
		if out.Change.Empty() {
			return out, nil, nil
		}
		return out, func() error {
			_, err := w.journalChange(context.WithoutCancel(ctx), actor, r.Findings, marks)
			return err
		}, nil
	}
}

// roundWork is the rest of a following round (followRound): it adds the
// round's events, makes and keeps the answer, and gives what changed,
// with what journals it (nil when nothing is to be journaled). The answer
// is everyone's to read when it returns; the journal entry, whose append
// waits for the disk (tens of milliseconds, over a hundred while the
// index writes), follows in the same round, before the next begins. A
// crash between the two loses no entry: the next process journals
// against the findings the journal last named (engine_journaled.go).
type roundWork func() (LiveRound, func() error, error)

// eventsAfter reads the stored events after last, in time order, when
// they are the want events a round stored; otherwise why names what makes
// the round need a replay.
func (w *Workspace) eventsAfter(ctx context.Context, last evidence.Event, want int64) (evs []evidence.Event, why string, err error) {
	src := evidence.StoreSource{Store: w.store, Since: last.Time}
	err = src.Each(ctx, evidence.All(), func(ev evidence.Event) error {
		if !detect.Before(&last, &ev) {
			return nil
		}
		evs = append(evs, ev)
		return nil
	})
	switch {
	case err != nil:
		return nil, "", err
	case int64(len(evs)) != want:
		return nil, fmt.Sprintf("%d of the round's %d events are earlier than the last one the detectors took (%s)",
			want-int64(len(evs)), want, last.Time.Format(time.RFC3339Nano)), nil
	}
	return evs, "", nil
}

// replayPass starts a pass over every stored event, as a one-shot run
// does (Scan), and leaves it open for the rounds to come; when mark is
// not zero, the events at it and after it are held: counted, not added,
// and kept in pending for the next round while they are few enough
// (maxPending; past it the next round reads them from the index).
func (w *Workspace) replayPass(ctx context.Context, mark time.Time) (p *detect.Pass, held int64, pending []evidence.Event, err error) {
	rules, err := w.rules()
	if err != nil {
		return nil, 0, nil, err
	}
	eng := detect.Engine{Rules: rules, Attribute: !AttributionStored(w.store.Counts()), Secrets: w.scanRedactor()}
	err = w.withReplay(func(src detect.Source) error {
		var err error
		if p, err = eng.Start(ctx, src); err != nil {
			return err
		}
		held, pending = 0, nil // a replay again from the index counts anew
		if !mark.IsZero() {
			src = heldAfter{src, mark, &held, &pending}
		}
		follow, end := tuneReplayGC()
		defer end()
		return replay(ctx, p, src, follow)
	})
	if err != nil {
		return nil, 0, nil, fmt.Errorf("findings: %w", err)
	}
	w.findingsMu.Lock()
	w.detectorRuns++
	w.findingsMu.Unlock()
	if int64(len(pending)) != held {
		pending = nil
	}
	return p, held, pending, nil
}

// maxPending bounds the events a replay keeps in hand for the next round
// (heldAfter); a variable for the tests.
var maxPending = 1 << 16

// heldAfter gives every event of its Source before mark, and counts
// those at it or after it in held, keeping the first maxPending of them
// in pending.
type heldAfter struct {
	detect.Source
	mark    time.Time
	held    *int64
	pending *[]evidence.Event
}

func (h heldAfter) Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error {
	return h.Source.Each(ctx, q, func(ev evidence.Event) error {
		if !ev.Time.Before(h.mark) {
			*h.held++
			if len(*h.pending) < maxPending {
				*h.pending = append(*h.pending, ev)
			}
			return nil
		}
		return fn(ev)
	})
}

// A round's answer is kept (engine/result.gob) for other processes to read
// while the follow goes on, and for the next one to start from. At a
// million events encoding it took about 0.3 s, as long as the round's
// answer itself (BenchmarkLiveAnswer/kept), and a follow paid it every
// round. Now a round keeps its answer when the last keep (encoding and
// writing) was cheap (under keepCheap), or when keepShare times the last
// keep has passed since it, so keeping takes at most about a tenth of a
// busy follow's time; otherwise the answer waits for the next round that may,
// the first round that adds nothing (the inputs quiet), or the follow's
// end. A costly keep runs beside the rounds (keepLive). Meanwhile a reader reads the answer last kept and says when it was
// kept (the file's time); a crash loses no finding: the next process
// replays, and journals against the findings the journal last named
// (engine_journaled.go), not against the answer kept.
const (
	keepCheap = 50 * time.Millisecond
	keepShare = 10
)

// liveKeep is the answer of a follow's rounds waiting to be kept.
type liveKeep struct {
	mu      sync.Mutex // guards what follows while a keep runs beside the rounds
	meta    resultMeta
	r       detect.Result
	pending bool
	at      time.Time     // when the last was kept
	took    time.Duration // how long encoding it took
	running bool          // a keep runs beside the rounds
	beside  sync.WaitGroup
	// cheap and share stand for keepCheap and keepShare when set, and a
	// keep beside the rounds waits slow first, standing for a costly
	// encoding (tests)
	cheap time.Duration
	share int
	slow  time.Duration
}

// keepLive keeps a round's answer, or leaves it waiting (above). A costly
// keep (the last took keepCheap or more) runs beside the rounds: encoding a
// million events' answer took half a second, which every line of the
// round that kept it waited for (the follow's p99). The answer is read
// only once made, so the next round goes on while it is written.
func (w *Workspace) keepLive(meta resultMeta, r detect.Result) {
	k := &w.liveKept
	k.mu.Lock()
	k.meta, k.r, k.pending = meta, r, true
	cheap, share := keepCheap, time.Duration(keepShare)
	if k.cheap != 0 {
		cheap, share = k.cheap, time.Duration(k.share)
	}
	if k.running || k.took >= cheap && time.Since(k.at) < share*k.took {
		k.mu.Unlock()
		return
	}
	if k.took < cheap {
		k.mu.Unlock()
		w.flushLive()
		return
	}
	meta, r = k.meta, k.r
	k.pending, k.r, k.running = false, detect.Result{}, true
	k.beside.Add(1)
	slow := k.slow
	k.mu.Unlock()
	go func() {
		defer k.beside.Done()
		time.Sleep(slow)
		took, _ := w.keepTimed(meta, r) // not keeping it costs another process a pass
		k.mu.Lock()
		k.at, k.took, k.running = time.Now(), took, false
		k.mu.Unlock()
	}()
}

// flushLive keeps the answer waiting, if one is, once a keep running
// beside the rounds has ended: the answer kept is the latest.
func (w *Workspace) flushLive() {
	k := &w.liveKept
	k.beside.Wait()
	k.mu.Lock()
	if !k.pending {
		k.mu.Unlock()
		return
	}
	meta, r := k.meta, k.r
	k.pending, k.r = false, detect.Result{}
	k.mu.Unlock()
	took, _ := w.keepTimed(meta, r) // not keeping it costs another process a pass
	k.mu.Lock()
	k.at, k.took = time.Now(), took
	k.mu.Unlock()
}
