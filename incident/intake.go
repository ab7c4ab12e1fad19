package incident

import (
	"container/heap"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/platform"
)

// The intake is what an ingest hands the store, batch by batch
// (ingest.Options.Taken), kept so that the ingest can write the replay
// log itself at its end: the replay after it (the detectors an ingest
// runs, the next command) then reads the log, and no replay decodes the
// events back from the index.
//
// Each batch is sorted by time (ties by id, the index's order) and
// written on at the end of the current run, a file of the replay log's
// form in engine/; a batch that begins before the run's last event (the
// next file of a multi-file ingest, a batch of a file out of order)
// begins a new run. At the ingest's end the runs and the replay log the
// index had when the ingest began are merged by time (k-way), each event
// once (the store keeps the first of an id, and so does the merge: the
// older log's, then the earlier run's), into a new replay log.
//
// Stored events that attribution rewrote at the ingest's end (session
// records that arrived after events they concern) are kept too, in time
// order, and stand for the events of their ids in the merge.
//
// The new log stands for the index only when nothing reached the index
// that the intake did not see, as the index keeps it: so there is none
// when a record replaced a stored event (a request's later stage), when
// an event holds text that is not UTF-8 (a store keeps it as JSON, which
// changes it), when the index held events that no log of it held, or
// when the merged events are not as many as the index holds. Then the
// next replay reads the index, as before, and writes the log.

const (
	// intakeRun names a run: intake-N in the engine's folder; the
	// patches are intake-patch.
	intakeRun   = "intake-"
	intakePatch = intakeRun + "patch"
	// maxIntakeRuns bounds the runs: each is read side by side at the
	// merge, a chunk of each in memory.
	maxIntakeRuns = 32
)

type intake struct {
	dir  string
	base *replayMeta // the replay log of the index when the ingest began; nil: the index was empty

	// the ingest's writer's own (take); read once the ingest has ended
	runs []*intakeFile // run i in intake-i; the last is being written
	why  string        // why the intake cannot stand for the index ("" while it can)

	// patches are the stored events attribution rewrote at the ingest's
	// end, in time order: each stands for the event of its id in the
	// log and the runs (the ingest's goroutine's own)
	patches  *intakeFile
	patchWhy string
}

// intakeFile is a file of the log's form written in time order.
type intakeFile struct {
	name string
	w    *logWriter // nil once ended
	n    int64
	last evidence.Event // the last event written: its time and id
}

func newIntakeFile(dir, name string) (*intakeFile, error) {
	w, err := newLogFile(dir, name)
	if err != nil {
		return nil, err
	}
	return &intakeFile{name: name, w: w}, nil
}

// fits says ev sorts after every event written.
func (f *intakeFile) fits(ev *evidence.Event) bool { return f.n == 0 || !detect.Before(ev, &f.last) }

func (f *intakeFile) add(ev *evidence.Event) {
	f.w.add(ev)
	f.last.ID, f.last.Time = ev.ID, ev.Time
	f.n++
}

// end writes what is left and puts the file in its place, unsynced.
func (f *intakeFile) end() error {
	if f.w == nil {
		return nil
	}
	_, err := f.w.end(false)
	f.w = nil
	return err
}

// events counts the events of the runs.
func (in *intake) events() int64 {
	var n int64
	for _, r := range in.runs {
		n += r.n
	}
	return n
}

// startIntake begins the intake of an ingest, or says why there is none.
func (w *Workspace) startIntake() (*intake, string) {
	if _, ok := w.store.(evidence.Generationer); !ok || w.isHeld() {
		return nil, "this store keeps no replay log"
	}
	if w.StoreAddr() != "" {
		// Another writer may add to the case meanwhile, unseen by the
		// intake and by this workspace's counts.
		return nil, "the events live on a server other writers may add to"
	}
	in := &intake{dir: filepath.Join(w.Dir, engineDir)}
	m, _, why := w.logOfIndex()
	switch {
	case why == "":
		in.base = &m
	case w.store.Counts().Total > 0:
		return nil, "the index held events no replay log held (" + why + ")"
	}
	if err := platform.Writable(w.Dir); err != nil {
		return nil, "the workspace cannot be written: " + err.Error()
	}
	if err := os.MkdirAll(in.dir, 0o700); err != nil {
		return nil, err.Error()
	}
	removeIntakeRuns(in.dir) // a crashed ingest's
	return in, ""
}

// take is ingest.Options.Taken. It runs on the ingest's writer and
// encodes the batch before the writer goes on, so that no batch is kept
// longer for the intake (a batch of hostile records is megabytes); the
// run's own goroutine compresses and writes.
func (in *intake) take(events, replaced []evidence.Event) {
	switch {
	case in.why != "":
	case len(replaced) > 0:
		in.why = "a record replaced a stored event (a request's later stage)"
	default:
		in.add(events)
	}
}

// endRuns ends the run being written.
func (in *intake) endRuns() {
	if len(in.runs) == 0 {
		return
	}
	if err := in.runs[len(in.runs)-1].end(); err != nil && in.why == "" {
		in.why = "a run could not be written: " + err.Error()
	}
}

// add writes a batch's events in time order.
func (in *intake) add(events []evidence.Event) {
	for _, i := range timeOrder(events) {
		ev := &events[i]
		if !ev.ValidText() {
			in.why = fmt.Sprintf("event %s holds text that is not UTF-8", ev.ID)
			return
		}
		if len(in.runs) == 0 || !in.runs[len(in.runs)-1].fits(ev) {
			if !in.newRun() {
				return
			}
		}
		in.runs[len(in.runs)-1].add(ev)
	}
}

// newRun ends the run being written and begins the next.
func (in *intake) newRun() bool {
	if in.endRuns(); in.why != "" {
		return false
	}
	if len(in.runs) == maxIntakeRuns {
		in.why = fmt.Sprintf("the inputs cross in time more than %d times", maxIntakeRuns)
		return false
	}
	r, err := newIntakeFile(in.dir, fmt.Sprint(intakeRun, len(in.runs)))
	if err != nil {
		in.why = "a run could not be written: " + err.Error()
		return false
	}
	in.runs = append(in.runs, r)
	return true
}

// patch keeps stored events attribution rewrote (Workspace.Attribute,
// which reads them in time order), as the store keeps them.
func (in *intake) patch(evs []evidence.Event) {
	for i := range evs {
		ev := &evs[i]
		switch {
		case in.patchWhy != "":
			return
		case !ev.ValidText():
			in.patchWhy = fmt.Sprintf("event %s holds text that is not UTF-8", ev.ID)
			return
		case in.patches == nil:
			f, err := newIntakeFile(in.dir, intakePatch)
			if err != nil {
				in.patchWhy = "the events attribution rewrote could not be written: " + err.Error()
				return
			}
			in.patches = f
		case !in.patches.fits(ev):
			in.patchWhy = "attribution rewrote stored events out of time order"
			return
		}
		in.patches.add(ev)
	}
}

// endPatches ends the file of patches, and says why they cannot be used.
func (in *intake) endPatches() string {
	if in.patches == nil {
		return in.patchWhy
	}
	if err := in.patches.end(); err != nil && in.patchWhy == "" {
		in.patchWhy = "the events attribution rewrote could not be written: " + err.Error()
	}
	return in.patchWhy
}

// abandon ends the intake of an ingest that failed.
func (in *intake) abandon() {
	in.endRuns()
	in.endPatches()
	removeIntakeRuns(in.dir)
}

// finish ends the intake once the ingest has stored everything: it writes
// the replay log from the runs, the log before them and the patches, and
// returns "" when it did, else why not.
func (in *intake) finish(ctx context.Context, w *Workspace) string {
	in.endRuns()
	defer removeIntakeRuns(in.dir)
	if why := in.endPatches(); why != "" {
		return why
	}
	if in.why != "" {
		return in.why
	}
	gen, err := w.store.(evidence.Generationer).Generation()
	if err != nil || gen == "" {
		return "the store does not say when its events last changed"
	}
	total, key := w.store.Counts().Total, w.evidence()
	meta := replayMeta{Version: replayVersion, Codec: evidence.EventCodec, Mapping: evidence.MappingVersion,
		Generation: gen, Evidence: key}
	n := in.events()
	if in.base == nil && len(in.runs) == 1 && in.patches == nil && n == total {
		// one run and nothing before it (an ingest of one file in order):
		// the run is the log
		if err := in.keepRun(in.runs[0], meta); err != nil {
			return "the replay log could not be written: " + err.Error()
		}
		return ""
	}
	var cs []*logCursor
	defer func() {
		for _, c := range cs {
			c.close()
		}
	}()
	if in.patches != nil {
		// first: of events alike, the patch is the one kept
		c, err := openLogCursor(ctx, filepath.Join(in.dir, intakePatch), in.patches.n, 0, 1, evidence.EventDecoder{})
		if err != nil {
			return "the events attribution rewrote could not be read: " + err.Error()
		}
		cs = append(cs, c)
	}
	var held int64
	if in.base != nil {
		held = in.base.Events
		c, err := openLogCursor(ctx, filepath.Join(in.dir, replayLogFile), in.base.Events, len(cs), 1, evidence.EventDecoder{})
		if err != nil {
			return "the replay log could not be read: " + err.Error()
		}
		cs = append(cs, c)
	}
	if held+n < total {
		return fmt.Sprintf("the index holds %d events, the intake and the log before it %d", total, held+n)
	}
	for _, r := range in.runs {
		c, err := openLogCursor(ctx, filepath.Join(in.dir, r.name), r.n, len(cs), 1, evidence.EventDecoder{})
		if err != nil {
			return "a run could not be read: " + err.Error()
		}
		cs = append(cs, c)
	}
	lw, err := newLogWriter(in.dir)
	if err != nil {
		return "no replay log can be written: " + err.Error()
	}
	if err := mergeLogs(cs, lw); err != nil {
		lw.abandon()
		return err.Error()
	}
	for _, c := range cs {
		if err := c.close(); err != nil {
			lw.abandon()
			return err.Error()
		}
	}
	cs = nil
	if now, err := w.store.(evidence.Generationer).Generation(); err != nil || now != gen || lw.n != total {
		lw.abandon()
		return fmt.Sprintf("%d events merged, the index holds %d", lw.n, total)
	}
	if err := lw.finish(meta); err != nil {
		return "the replay log could not be written: " + err.Error()
	}
	return ""
}

// keepRun puts the one run r in the log's place, with meta.
func (in *intake) keepRun(r *intakeFile, meta replayMeta) error {
	run := filepath.Join(in.dir, r.name)
	f, err := os.Open(run)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(run, filepath.Join(in.dir, replayLogFile))
	}
	if err != nil {
		return err
	}
	meta.Events, meta.Bytes = r.n, fi.Size()
	return writeReplayMeta(in.dir, meta)
}

// mergeLogs writes the events of cs to lw in time order, each id once:
// of events alike, the first cursor's.
func mergeLogs(cs []*logCursor, lw *logWriter) error {
	h := make(cursorHeap, 0, len(cs))
	for _, c := range cs {
		if c.next() {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	var last evidence.Event
	for len(h) > 0 {
		c := h[0]
		ev := c.ev()
		switch {
		case lw.n > 0 && detect.Before(ev, &last):
			return fmt.Errorf("%w: an event out of order", errReplayLog)
		case lw.n == 0 || ev.ID != last.ID || !ev.Time.Equal(last.Time):
			lw.add(ev)
			last.ID, last.Time = ev.ID, ev.Time
		}
		if c.next() {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	return nil
}

// cursorHeap orders cursors by their events, then by rank.
type cursorHeap []*logCursor

func (h cursorHeap) Len() int { return len(h) }
func (h cursorHeap) Less(i, j int) bool {
	if c := detect.Compare(h[i].ev(), h[j].ev()); c != 0 {
		return c < 0
	}
	return h[i].rank < h[j].rank
}
func (h cursorHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)   { *h = append(*h, x.(*logCursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// timeOrder is the places of evs in time order, ties by id (the index's
// order), equal events in their order in evs.
func timeOrder(evs []evidence.Event) []int32 {
	order := make([]int32, len(evs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return detect.Compare(&evs[a], &evs[b]) })
	return order
}

// removeIntakeRuns removes the runs in dir, and those a crash left.
func removeIntakeRuns(dir string) {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), intakeRun) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
