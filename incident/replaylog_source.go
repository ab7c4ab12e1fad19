package incident

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/platform"
)

// replaySource is what a replay of the workspace reads: every event from
// the replay log when it is of the index now, else from the index —
// written to a new log as it goes where the workspace keeps one. Other
// queries (the session records a pass reads first) go to the index.
type replaySource struct {
	w   *Workspace
	idx evidence.StoreSource
	// log is the meta of the log to read (nil: read the index).
	log *replayMeta
	// gen is the index's generation when the replay began ("": keep no log).
	gen string
	why string // why the log is not read
}

var _ detect.Source = (*replaySource)(nil)

// replaySource chooses what the next replay reads.
func (w *Workspace) replaySource() *replaySource {
	s := &replaySource{w: w, idx: evidence.StoreSource{Store: w.store}}
	m, gen, why := w.logOfIndex()
	if why == "" {
		s.log = &m
		return s
	}
	s.why = why
	if gen != "" && platform.Writable(w.Dir) == nil && (w.write || journal.CheckWritable(w.Dir, false) == nil) {
		s.gen = gen
	}
	return s
}

// logOfIndex is the replay log's meta when the log holds the index's
// events as they are now (why is ""), else why it does not; gen is the
// index's generation ("" when it has none to tell by: no log is kept).
func (w *Workspace) logOfIndex() (m replayMeta, gen, why string) {
	g, ok := w.store.(evidence.Generationer)
	if !ok || w.isHeld() {
		return m, "", "this store keeps no replay log"
	}
	gen, err := g.Generation()
	if err != nil || gen == "" {
		return m, "", "the store does not say when its events last changed"
	}
	dir := filepath.Join(w.Dir, engineDir)
	m, err = readReplayMeta(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return m, gen, "no replay log was written"
	case err != nil:
		return m, gen, "the replay log's meta cannot be read"
	case m.Version != replayVersion || m.Codec != evidence.EventCodec || m.Mapping != evidence.MappingVersion:
		return m, gen, "the replay log is another cordon version's"
	case m.Generation != gen || m.Evidence != w.evidence() || m.Events != w.store.Counts().Total:
		return m, gen, "the evidence changed since the replay log was written"
	}
	if fi, err := os.Stat(filepath.Join(dir, replayLogFile)); err != nil || fi.Size() != m.Bytes {
		return m, gen, "the replay log is not the one its meta describes"
	}
	return m, gen, ""
}

// Each implements detect.Source.
func (s *replaySource) Each(ctx context.Context, q evidence.Query, fn func(evidence.Event) error) error {
	switch {
	case !q.IsAll():
		return s.idx.Each(ctx, q, fn)
	case s.log != nil:
		s.w.replayedFrom("the replay log")
		s.w.restIndex()
		return eachLogged(ctx, filepath.Join(s.w.Dir, engineDir, replayLogFile), s.log.Events, evidence.EventDecoder{}, fn)
	case s.gen == "":
		s.w.replayedFrom("the index (" + s.why + ")")
		return s.idx.Each(ctx, q, fn)
	}
	return s.eachRecorded(ctx, fn)
}

// EachLean implements detect.LeanSource: from the replay log, the origins
// and the text keepText does not ask for are not decoded; read from the
// index (and written to a new log), every event is whole.
func (s *replaySource) EachLean(ctx context.Context, keepText func(source, kind string) bool, fn func(evidence.Event) error) error {
	if s.log == nil {
		return s.Each(ctx, evidence.All(), fn)
	}
	s.w.replayedFrom("the replay log")
	s.w.restIndex()
	dec := evidence.EventDecoder{KeepText: keepText, NoOrigin: true}
	return eachLogged(ctx, filepath.Join(s.w.Dir, engineDir, replayLogFile), s.log.Events, dec, fn)
}

// eachRecorded reads the index and writes what it reads to a new log,
// kept when the index did not change meanwhile.
func (s *replaySource) eachRecorded(ctx context.Context, fn func(evidence.Event) error) error {
	st := s.w.store
	key, total := s.w.evidence(), st.Counts().Total
	lw, err := newLogWriter(filepath.Join(s.w.Dir, engineDir))
	if err != nil {
		s.w.replayedFrom("the index (" + s.why + "; no replay log can be written: " + err.Error() + ")")
		return s.idx.Each(ctx, evidence.All(), fn)
	}
	err = s.idx.Each(ctx, evidence.All(), func(ev evidence.Event) error {
		lw.add(&ev)
		return fn(ev)
	})
	gen, gerr := st.(evidence.Generationer).Generation()
	if err != nil || gerr != nil || gen != s.gen || s.w.evidence() != key || lw.n != total {
		lw.abandon()
		s.w.replayedFrom("the index (" + s.why + "; it changed during the replay: no replay log written)")
		return err
	}
	meta := replayMeta{Version: replayVersion, Codec: evidence.EventCodec, Mapping: evidence.MappingVersion,
		Generation: gen, Evidence: key}
	if ferr := lw.finish(meta); ferr != nil {
		s.w.replayedFrom("the index (" + s.why + "; the replay log could not be written: " + ferr.Error() + ")")
		return nil
	}
	s.w.replayedFrom("the index (" + s.why + "; the replay log is written for the next)")
	return nil
}

// restIndex lets the index go while a replay reads the log, where nothing
// else reads the workspace meanwhile (ReadsAlone): the pass has read what
// it asks of the index (the session records) before the events.
func (w *Workspace) restIndex() {
	if r, ok := w.store.(evidence.Rester); ok && w.alone {
		r.Rest()
	}
}

// replayedFrom records what the last replay read (ReplayedFrom).
func (w *Workspace) replayedFrom(what string) {
	w.replayMu.Lock()
	w.replayed = what
	w.replayMu.Unlock()
}

// ReplayedFrom says what this process's last replay of the stored events
// read: "the replay log", or "the index (why)"; "" when it replayed none.
func (w *Workspace) ReplayedFrom() string {
	w.replayMu.Lock()
	defer w.replayMu.Unlock()
	return w.replayed
}

// IngestWroteLog says whether this process's last ingest wrote the
// replay log from the events it stored (its intake), so that the replay
// after it reads the log; why says why not when it did not.
func (w *Workspace) IngestWroteLog() (wrote bool, why string) {
	w.replayMu.Lock()
	defer w.replayMu.Unlock()
	if !w.ingested {
		return false, "no ingest in this process"
	}
	return w.intakeWhy == "", w.intakeWhy
}

// saidIntake records why the ingest wrote no replay log ("": it did).
func (w *Workspace) saidIntake(why string) {
	w.replayMu.Lock()
	w.intakeWhy, w.ingested = why, true
	w.replayMu.Unlock()
}

// withReplay runs a replay of the workspace's events; when the replay log
// it read proves damaged, the log is removed and the replay runs again
// from the index.
func (w *Workspace) withReplay(run func(src detect.Source) error) error {
	src := w.replaySource()
	err := run(src)
	if !errors.Is(err, errReplayLog) {
		return err
	}
	dir := filepath.Join(w.Dir, engineDir)
	_ = os.Remove(filepath.Join(dir, replayMetaFile))
	_ = os.Remove(filepath.Join(dir, replayLogFile))
	src = w.replaySource()
	src.why = fmt.Sprintf("the replay log was damaged (%v) and is removed", err)
	return run(src)
}

// scanReplay runs the detectors with opt's rules over a replay of the
// workspace's events (the built-in rules when opt names none).
func (w *Workspace) scanReplay(ctx context.Context, opt FindingsOptions) (detect.Result, error) {
	rules, err := opt.rules()
	if err != nil {
		return detect.Result{}, err
	}
	var r detect.Result
	err = w.withReplay(func(src detect.Source) error {
		var err error
		r, err = scanSource(ctx, src, w.store.Counts(), rules, opt)
		return err
	})
	return r, err
}

// loggedKey is the evidence key of the replay log when it holds exactly
// the index's events now, "" otherwise: a follow extends such a log with
// the events of each round it adds in order.
func (w *Workspace) loggedKey() string {
	m, _, why := w.logOfIndex()
	if why != "" {
		return ""
	}
	return m.Evidence
}

// extendReplayLog writes a round's events, which sort after every event
// before them, at the end of the replay log, when the log holds the
// events before the round (its evidence key is key): the next replay then
// reads the log rather than the index. held counts the stored events
// after them that a follow holds for order: while there are any, the log
// is not of the index (its key says so, and no replay reads it) and the
// next round extends it. It returns the log's new key, "" when the log
// was not extended (the next replay reads the index and writes it anew).
func (w *Workspace) extendReplayLog(key string, evs []evidence.Event, held int64) string {
	dir := filepath.Join(w.Dir, engineDir)
	m, err := readReplayMeta(dir)
	if key == "" || err != nil || m.Evidence != key || m.Events+int64(len(evs))+held != w.store.Counts().Total {
		return ""
	}
	g, ok := w.store.(evidence.Generationer)
	if !ok {
		return ""
	}
	gen, err := g.Generation()
	if err != nil || gen == "" {
		return ""
	}
	lw, err := extendLogWriter(dir, m)
	if err != nil {
		return ""
	}
	for i := range evs {
		lw.add(&evs[i])
	}
	m.Generation, m.Evidence = gen, w.evidence()
	if held > 0 {
		m.Evidence += fmt.Sprintf(" less %d held for order", held)
	}
	if lw.finish(m) != nil {
		return ""
	}
	return m.Evidence
}
