package incident

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/journal"
)

// IngestRun is an ingest running in the background while the store already
// answers searches over what it has indexed: the console opens at once on a
// large incident instead of waiting for the last file.
type IngestRun struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when the run ended
	own    *IngestWatch  // the watch Next uses

	mu      sync.Mutex
	latest  IngestUpdate
	version uint64        // counts changes
	changed chan struct{} // closed (and replaced) at each change
}

// IngestUpdate is a snapshot of a background ingest.
type IngestUpdate struct {
	Progress ingest.Progress
	// Following is set once the first pass has read every input and the
	// run keeps watching them for appended lines (and rotation).
	Following bool
	// Rounds counts finished passes over the inputs; Added is the number of
	// new events over all of them.
	Rounds int
	Added  int64
	// Done is set once, on the last update, with the results and the error.
	Done    bool
	Results []ingest.FileResult
	Err     error
	// Findings is the detectors' total after the last round of a follow
	// (-1 before the first), Detected what that round changed, DetectErr
	// why the detectors failed on it.
	Findings  int
	Detected  FindingsChange
	DetectErr error
	// Held counts the events the last round held for order: stored,
	// and not yet in the findings (follow_marks.go).
	Held int
	// Judged counts the rounds whose answer changed the findings: a round
	// that added no new event may still add those held for order
	// (follow_marks.go), and a console reloads its findings for it.
	Judged int
}

// followInterval is how often a following console looks for new lines,
// as ingest --follow does: an appended line is seen within half a second,
// and its findings follow the round's answer (engine_live.go). A round
// with nothing new costs a stat of each file: resumes seek, they do not
// read the files again.
const followInterval = 500 * time.Millisecond

// StartIngest runs Ingest in a goroutine, or with follow, keeps following
// the inputs after the first pass until ctx ends. Progress is coalesced: a
// reader that falls behind sees the latest snapshot, never a queue.
func (w *Workspace) StartIngest(ctx context.Context, inputs []string, opt IngestOptions, follow bool) *IngestRun {
	ctx, cancel := context.WithCancel(ctx)
	r := &IngestRun{cancel: cancel, done: make(chan struct{}), changed: make(chan struct{})}
	r.latest.Findings = -1
	r.own = r.Watch()
	if follow && opt.Detectors == nil {
		// the round's poke (round, below) shows it
		opt.Detectors = func(lr LiveRound, err error) {
			r.mu.Lock()
			r.latest.DetectErr = err
			if err == nil {
				r.latest.Findings, r.latest.Detected, r.latest.Held = lr.Change.Total, lr.Change, lr.Held
				if !lr.Change.Empty() {
					r.latest.Judged++
				}
			}
			r.mu.Unlock()
		}
	}
	opt.Progress = func(p ingest.Progress) {
		r.mu.Lock()
		r.latest.Progress = p
		r.mu.Unlock()
		r.poke()
	}
	go func() {
		defer close(r.done)
		var res []ingest.FileResult
		var err error
		if follow {
			err = w.Follow(ctx, inputs, opt, followInterval, r.round)
			res = r.Latest().Results
		} else {
			res, err = w.Ingest(ctx, inputs, opt)
		}
		r.mu.Lock()
		r.latest.Done, r.latest.Results, r.latest.Err = true, res, err
		r.latest.Progress.Done = true
		r.mu.Unlock()
		r.poke()
	}()
	return r
}

// round records one finished pass of a following ingest.
func (r *IngestRun) round(res []ingest.FileResult) {
	r.mu.Lock()
	r.latest.Following = true
	r.latest.Rounds++
	for _, f := range res {
		r.latest.Added += int64(f.New)
	}
	r.latest.Results = sumRounds(r.latest.Results, res)
	r.mu.Unlock()
	r.poke()
}

// sumRounds adds a following ingest's round to the rounds before it, per
// file: each round reads only what was appended since the last, so a
// file's counts are their sum (the first round's alone would be replaced
// by a later round's zeros). Where a file resumed and what went wrong
// last are kept as the rounds say them.
func sumRounds(prev, round []ingest.FileResult) []ingest.FileResult {
	if len(prev) == 0 {
		return round
	}
	before := make(map[string]ingest.FileResult, len(prev))
	for _, f := range prev {
		before[f.Path] = f
	}
	out := make([]ingest.FileResult, 0, max(len(prev), len(round)))
	seen := map[string]bool{}
	for _, f := range round {
		seen[f.Path] = true
		if p, ok := before[f.Path]; ok {
			f.Events += p.Events
			f.Stored += p.Stored
			f.New += p.New
			f.Rejects += p.Rejects
			f.Routine += p.Routine
			f.Merged += p.Merged
			f.ResumedAt = p.ResumedAt
			if f.Format == "" {
				f.Format = p.Format
			}
			if !p.First.IsZero() && (f.First.IsZero() || p.First.Before(f.First)) {
				f.First = p.First
			}
			if p.Last.After(f.Last) {
				f.Last = p.Last
			}
		}
		out = append(out, f)
	}
	for _, p := range prev {
		if !seen[p.Path] { // a rotated file read in an earlier round
			out = append(out, p)
		}
	}
	return out
}

func (r *IngestRun) poke() {
	r.mu.Lock()
	r.version++
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
}

// Next waits for the next change and returns the latest snapshot. After the
// final update it returns that update again at once, with ok false. It
// serves one reader; each further reader (a console per SSH session) takes
// its own Watch.
func (r *IngestRun) Next(ctx context.Context) (u IngestUpdate, ok bool) { return r.own.Next(ctx) }

// IngestWatch is one reader's view of an ingest: it sees every change
// after the last one it was given, coalesced, however many readers there
// are.
type IngestWatch struct {
	r    *IngestRun
	seen uint64
}

// Watch starts a reader that has seen nothing yet.
func (r *IngestRun) Watch() *IngestWatch { return &IngestWatch{r: r} }

// Next is IngestRun.Next for this reader.
func (w *IngestWatch) Next(ctx context.Context) (u IngestUpdate, ok bool) {
	for {
		w.r.mu.Lock()
		version, changed := w.r.version, w.r.changed
		w.r.mu.Unlock()
		if version > w.seen {
			w.seen = version
			return w.r.Latest(), true
		}
		select {
		case <-changed:
		case <-w.r.done:
			w.r.mu.Lock()
			more := w.r.version > w.seen
			w.r.mu.Unlock()
			if !more {
				return w.r.Latest(), false
			}
		case <-ctx.Done():
			return w.r.Latest(), false
		}
	}
}

// Latest returns the current snapshot without waiting.
func (r *IngestRun) Latest() IngestUpdate {
	r.mu.Lock()
	defer r.mu.Unlock()
	u := r.latest
	u.Results = append([]ingest.FileResult(nil), u.Results...)
	return u
}

// Stop cancels the ingest and waits for it to end; what was indexed stays
// and a later ingest resumes from the checkpoints.
func (r *IngestRun) Stop() IngestUpdate {
	r.cancel()
	<-r.done
	return r.Latest()
}

// Wait waits for the ingest to finish on its own.
func (r *IngestRun) Wait() IngestUpdate {
	<-r.done
	return r.Latest()
}

// DirFor names the workspace for inputs under stateDir:
// STATE/cordon/incidents/<name>-<hash>, the name taken from the first
// input and the hash from all of them (absolute paths). The same inputs
// name the same workspace: opening them again returns to the case (its
// journal, marks and steps) and ingests only what is new. stateDir is
// $XDG_STATE_HOME, or ~/.local/state.
func DirFor(stateDir string, inputs []string) string {
	name := "incident"
	if len(inputs) > 0 && inputs[0] != "-" {
		base := filepath.Base(filepath.Clean(inputs[0]))
		base = strings.TrimSuffix(base, filepath.Ext(base))
		if s := strings.Trim(safeName(base), "-."); s != "" {
			name = s
		}
	}
	if len(name) > 48 {
		name = name[:48]
	}
	h := sha256.New()
	for _, in := range inputs {
		if abs, err := filepath.Abs(in); err == nil {
			in = abs
		}
		fmt.Fprintf(h, "%s\x00", filepath.Clean(in))
	}
	return filepath.Join(stateDir, "cordon", "incidents", fmt.Sprintf("%s-%x", name, h.Sum(nil)[:4]))
}

// safeName keeps letters, digits, dot, dash and underscore, and turns each
// run of anything else into one dash.
func safeName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		ok := r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-", r))
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	return b.String()
}

// IsWorkspace reports whether dir holds an incident workspace, as opposed
// to a folder of evidence to ingest: an index and cordon's marker (or,
// made before the marker, an index beside a case journal). A folder that
// merely holds an index.bleve is not one.
func IsWorkspace(dir string) bool {
	if !hasEvidence(dir) {
		return false
	}
	for _, f := range []string{markerFile, "journal.jsonl"} {
		if m, err := os.Stat(filepath.Join(dir, f)); err == nil && m.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// Follow ingests inputs and keeps ingesting what is appended to them (and
// what a rotation moved aside) every interval until ctx ends, attributing as
// Ingest does. round is told each round's results.
func (w *Workspace) Follow(ctx context.Context, inputs []string, opt IngestOptions, interval time.Duration, round func([]ingest.FileResult)) error {
	if !w.write {
		return errors.New("incident opened read-only")
	}
	attr, err := w.newAttributor(ctx)
	if err != nil {
		return err
	}
	// other commands read the index through this process while it holds
	// it; without that they read the kept answer only
	if stop, err := w.serveReads(); err == nil {
		defer stop()
	}
	iopt := ingest.Options{
		Format: opt.Format, Stdin: opt.Stdin, Progress: opt.Progress,
		Rejects: w.rejects, Store: w.store, Prepare: attr.prepare,
	}
	if opt.Detectors != nil && w.StoreAddr() == "" {
		// the detectors take each round's events from the ingest's hand
		w.taking = &roundTaken{}
		iopt.Taken = w.taking.take
		defer func() { w.taking = nil }()
	}
	var roundErr error
	var last []ingest.FileResult
	// A round's detectors make their answer beside the ingest's next
	// round: the index takes the lines appended meanwhile while the
	// answer of those before is made (on two cores, a million-line follow
	// at 10,000 lines a second waited for both in turn). Rounds of the
	// detectors run one at a time, in order, each told (opt.Detectors, then
	// round) before the next begins.
	var beside chan struct{} // closed when the round's detectors end
	wait := func() {
		if beside != nil {
			<-beside
			beside = nil
		}
	}
	detectors := func(finish roundWork, res []ingest.FileResult) {
		done := make(chan struct{})
		beside = done
		go func() {
			defer close(done)
			lr, record, err := finish()
			opt.Detectors(lr, err)
			if round != nil {
				round(res)
			}
			// what the round changed, journaled once shown
			if record != nil {
				if err := record(); err != nil {
					opt.Detectors(lr, err)
				}
			}
		}()
	}
	actor := opt.Actor
	if actor.Name == "" {
		actor = journal.CurrentActor(journal.ViaCLI)
	}
	err = ingest.Follow(ctx, inputs, iopt, interval, func(res []ingest.FileResult) {
		last = res
		reattributed := false // stored events moved between agents
		if !attr.since.IsZero() {
			ar, err := w.Attribute(ctx, attr.since)
			if err != nil && roundErr == nil {
				roundErr = err
			}
			reattributed = err != nil || ar.Changed > 0
			attr.since = time.Time{}
		}
		files, _ := ingest.Expand(inputs)
		if err := w.syncSources(ctx, files); err != nil && roundErr == nil {
			roundErr = err
		}
		if err := w.recordReceipts(context.WithoutCancel(ctx), opt.Actor, opt.From, res, true, false); err != nil && roundErr == nil {
			roundErr = err
		}
		wait()
		if opt.Detectors != nil && ctx.Err() == nil {
			detectors(w.followRound(ctx, actor, res, reattributed), res)
			if w.detectInStep {
				wait()
			}
			return
		}
		if round != nil {
			round(res)
		}
	})
	wait()
	if err == nil {
		err = roundErr
	}
	// what waited for order goes to the detectors as the follow ends
	if w.live != nil && w.live.held > 0 && opt.Detectors != nil {
		w.following.done = true
		lr, record, err := w.followRound(context.WithoutCancel(ctx), actor, nil, false)()
		if err == nil && record != nil {
			err = record()
		}
		opt.Detectors(lr, err)
	}
	w.findingsMu.Lock()
	w.followAnswer = false // the index stands: its key says whether the answer is of it
	w.findingsMu.Unlock()
	w.flushLive() // the last answer waiting, kept as the follow ends
	// The growth that waited for GrowthEvery is recorded as the follow ends.
	if jerr := w.recordReceipts(context.WithoutCancel(ctx), opt.Actor, opt.From, last, true, true); jerr != nil && err == nil {
		err = jerr
	}
	return err
}
