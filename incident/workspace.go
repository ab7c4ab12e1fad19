package incident

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cordon-ir/cordon/assist"
	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest"
	"github.com/cordon-ir/cordon/ingest/parse"
	"github.com/cordon-ir/cordon/journal"
	"github.com/cordon-ir/cordon/platform"
)

// ErrNoIncident: the directory is not an incident workspace. It is the
// journal's value, so a journal opened on a missing directory and a
// workspace without an index fail alike.
var ErrNoIncident = journal.ErrNoIncident

// Files of a workspace.
const (
	indexDir = "index.bleve"
	// markerFile says a folder is a cordon workspace, written when one is
	// opened for writing.
	markerFile  = "cordon-workspace"
	sourcesFile = "sources.json"
	rejectsFile = "rejects.jsonl"
)

// Workspace is an incident directory opened for reading or writing.
type Workspace struct {
	Dir string
	// store is the evidence: read through the use cases (reads.go), never
	// handed out, so that nothing above the case reaches it.
	store evidence.Store

	write   bool
	shared  bool // --allow-shared: a team's workspace, on purpose
	lock    *journal.WorkspaceLock
	rejects *rejectLog

	marksOnce sync.Once
	marks     *Marks
	marksErr  error

	journal    *journal.Journal
	findingsMu sync.Mutex
	// recompute: run the detectors rather than read the kept result
	recompute bool
	// stale: why a kept result was not read (Stale)
	stale       string
	keptRun     atomic.Bool   // this process kept the result its run of the detectors gave
	scanned     detect.Result // findings and capabilities of the evidence findingsKey names
	findingsKey string
	live        *livePass    // the pass a following ingest keeps (followRound)
	following   *followMarks // how far each followed input got (followRound)
	taking      *roundTaken  // what a follow's ingest stored in the round (followRound)
	liveKept    liveKeep     // a follow's answer waiting to be kept (keepLive)
	// followAnswer: scanned is a following ingest's latest answer, read
	// as the case's while the follow goes on (scan)
	followAnswer bool
	// detectInStep: each round of a follow's detectors ends before the
	// ingest's next round begins (the tests that check a follow round by
	// round; Follow)
	detectInStep bool
	// journaledMu guards journaled, the Marks of the findings the journal
	// last named (engine_journaled.go)
	journaledMu sync.Mutex
	journaled   map[string]detect.Mark
	// heldForOrder, of a workspace opened held: the events its follower
	// held for order when it kept the answer read
	heldForOrder int64
	held         string    // OpenHeld: the evidence key of the follower's kept answer
	heldAt       time.Time // and when it was kept
	heldReads    string    // why it cannot read the evidence through its follower
	// heldUnmatched counts the suppressions with a query a held workspace
	// could not match (HeldUnmatched)
	heldUnmatched map[string]bool
	// detectorRuns counts the scans behind scanned (DetectorRuns).
	detectorRuns int
	replayMu     sync.Mutex
	replayed     string // what the last replay read (ReplayedFrom)
	// ingested says this process ingested; intakeWhy why its last
	// ingest wrote no replay log from its intake ("" when it did)
	ingested  bool
	intakeWhy string
	// intaking is the intake of the ingest under way, told of the events
	// attribution rewrites at its end
	intaking  *intake
	rehearsal bool // a drill: actions are dry runs, whoever asks
	// shareRuns: several consoles read the workspace (cordon serve): the
	// run of the detectors they share is not cancelled by whichever of
	// them started it going away.
	shareRuns bool
	// alone: nothing else in this process reads the workspace while a
	// replay runs (ReadsAlone)
	alone  bool
	closed bool // Close ran
	// keeping is held by a write of a file kept for later reads (keepFile)
	// and by Close, so that none is written once Close returned: the
	// detectors' run that consoles share goes on after they left.
	keeping    sync.RWMutex
	shut       bool // under keeping: Close ran
	configOnce sync.Once
	config     *Config
	configErr  error
	custody    custody // what the journal last recorded of each input
	// suppressMu keeps two readers from journaling cordon.yaml's
	// suppressions twice.
	suppressMu sync.Mutex
	probeMu    sync.Mutex
	probes     map[string]assist.Probe // the assistant endpoints' probes, once read or made
}

// ErrReadOnly: the workspace cannot be written (read-only media); readers
// work on it, writers fail with this error.
var ErrReadOnly = journal.ErrWorkspaceReadOnly

// ErrShared: a writer refused a workspace that other users can read.
var ErrShared = journal.ErrShared

// Option changes how a workspace is opened.
type Option func(*options)

type options struct {
	shared bool
	memory bool
	store  string // a remote store's address (Store)
	caseOf string // a workspace whose case on its store a new one reads (CaseOf)
}

// InMemory, when on, keeps the evidence in an in-memory store
// (evidence.NewMemStore) instead of the Bleve index under the workspace:
// the second implementation of the Store contract, for trying the console
// on another backend. The evidence is gone when the process ends; the
// journal and the rest of the workspace are on disk as ever.
func InMemory(on bool) Option {
	return func(o *options) { o.memory = o.memory || on }
}

// AllowShared, when allow is set, lets a writer write into a workspace
// other users can read, which it refuses by default (journal.CheckPrivate):
// a team that shares a workspace on purpose, through a group, says so.
func AllowShared(allow bool) Option {
	return func(o *options) { o.shared = o.shared || allow }
}

func optionsOf(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Create opens dir for writing, creating it if needed, private to its
// owner. One writer at a time: a second gets journal.ErrLocked at once,
// naming the holder. A directory other users can read is refused with
// ErrShared unless AllowShared; one on read-only media with ErrReadOnly.
func Create(dir string, opts ...Option) (*Workspace, error) {
	if err := os.MkdirAll(dir, journal.DirMode); err != nil {
		if journal.CannotWrite(err) {
			return nil, fmt.Errorf("%w: cannot create incident %s: %v", ErrReadOnly, dir, err)
		}
		return nil, fmt.Errorf("create incident %s: %w", dir, err)
	}
	if err := makePrivate(dir); err != nil {
		return nil, err
	}
	return open(dir, true, optionsOf(opts))
}

// makePrivate takes group and other permissions from dir while it is still
// empty (made by mkdir under a umask of 022, say): nothing in it has been
// exposed yet, and whatever comes is evidence. A folder that holds
// anything keeps its mode, and open refuses it if it is shared.
func makePrivate(dir string) error {
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm()&0o077 == 0 {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) > 0 {
		return nil
	}
	if err := os.Chmod(dir, info.Mode().Perm()&^0o077); err != nil && !journal.CannotWrite(err) {
		return fmt.Errorf("create incident %s: %w", dir, err)
	}
	return nil
}

// Open opens an existing workspace read-only. While a writer holds it,
// Open fails at once with journal.ErrLocked: Bleve's index allows one process.
// It works on read-only media too. What it journals (checks, a subject, an
// action) is refused in a workspace others can read unless AllowShared.
func Open(dir string, opts ...Option) (*Workspace, error) {
	if hasEvidence(dir) && !IsWorkspace(dir) {
		return nil, fmt.Errorf("%w: %s holds an %s but is not a cordon workspace (no %s, no case journal)", ErrNoIncident, dir, indexDir, markerFile)
	}
	if !hasEvidence(dir) {
		// A writer creating the workspace holds the lock before the index
		// exists: that is "in use", not "no workspace".
		if journal.HasWorkspaceLock(dir) {
			l, err := journal.LockWorkspace(dir, false)
			if err != nil {
				return nil, err
			}
			l.Release()
		}
		return nil, fmt.Errorf("%w: %s has no %s (create one with cordon ingest --incident %s FILE...)", ErrNoIncident, dir, indexDir, dir)
	}
	return open(dir, false, optionsOf(opts))
}

// ShareRuns says several consoles read the workspace at once (cordon
// serve): the run of the detectors they share outlives the console that
// started it.
func (w *Workspace) ShareRuns() { w.shareRuns = true }

// ReadsAlone says nothing else in this process reads the workspace while
// the detectors replay its events (a command that waits for the answer):
// a replay from the replay log then lets the index go until it is next
// read (evidence.Rester), and holds that much less memory: 80 MB at ten
// million events.
func (w *Workspace) ReadsAlone() { w.alone = true }

// Rehearse makes every action on the workspace a dry run: a drill
// rehearses the kill switch and never pulls it, whatever a console asks.
func (w *Workspace) Rehearse() { w.rehearsal = true }

// OpenCase opens a workspace's journal and configuration without its
// index, and without any lock: steps and notes can be recorded while an
// ingest holds the index. It has no evidence to read.
func OpenCase(dir string, opts ...Option) (*Workspace, error) {
	if !IsWorkspace(dir) {
		return nil, fmt.Errorf("%w: %s has no %s", ErrNoIncident, dir, indexDir)
	}
	j, err := openJournal(dir, optionsOf(opts))
	if err != nil {
		return nil, err
	}
	return &Workspace{Dir: dir, journal: j, shared: optionsOf(opts).shared}, nil
}

func openJournal(dir string, o options) (*journal.Journal, error) {
	j, err := journal.Open(dir)
	if err == nil && o.shared {
		j.AllowShared()
	}
	return j, err
}

func open(dir string, write bool, o options) (*Workspace, error) {
	if write {
		if err := journal.CheckWritable(dir, o.shared); err != nil {
			return nil, err
		}
	}
	l, err := journal.LockWorkspace(dir, write)
	if err != nil {
		return nil, err
	}
	if write {
		// before the index: a reader never sees an index unmarked
		if err := writeMarker(dir); err != nil {
			l.Release()
			return nil, err
		}
	}
	st, err := openStore(dir, write, o)
	if err != nil {
		l.Release()
		if errors.Is(err, evidence.ErrIncompatible) {
			return nil, fmt.Errorf("%w; rebuild it with: cordon ingest --rebuild --incident %s", err, dir)
		}
		return nil, err
	}
	w := &Workspace{Dir: dir, store: st, write: write, shared: o.shared, lock: l}
	if w.journal, err = openJournal(dir, o); err != nil {
		w.Close()
		return nil, err
	}
	if write {
		w.rejects, err = openRejectLog(filepath.Join(dir, rejectsFile))
		if err != nil {
			w.Close()
			return nil, err
		}
		// the case's redaction key, made now rather than by whichever
		// output or background pass needs it first
		w.Redactor()
	}
	return w, nil
}

// Close releases the index and the lock; closing again does nothing.
func (w *Workspace) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	w.keeping.Lock()
	w.shut = true
	w.keeping.Unlock()
	var err error
	if w.store != nil {
		err = w.store.Close()
	}
	if w.rejects != nil {
		w.rejects.Close()
	}
	w.lock.Release()
	return err
}

// IngestOptions are the knobs of an ingest.
type IngestOptions struct {
	Format   string
	Stdin    io.Reader
	Progress func(ingest.Progress)
	// Actor is who ran the ingest, for the evidence_received entries
	// (default: this process's user, via the CLI).
	Actor journal.Actor
	// Growing says the inputs are still being written (a drill releasing
	// its evidence): growth is journaled as a follow journals it, at most
	// every GrowthEvery, and FlushReceipts records what waited.
	Growing bool
	// Detectors, when set, makes a follow keep the detectors' answer up
	// to the evidence after each round (see followRound) and tells it
	// what the round changed, or why it failed: once a round, as soon as
	// the answer is made, and once more, with the error, should
	// journaling the change fail after.
	Detectors func(LiveRound, error)
	// From says where the inputs came from when that is not the files
	// themselves (Receive): it is journaled with their receipts.
	From string
}

// killedAfterRun stands, in tests, for a kill between an ingest storing
// its events and attributing again what they concern.
var killedAfterRun func() error

// Ingest reads inputs (files, folders, "-") into the workspace, resuming
// each file from its checkpoint, and updates sources.json.
func (w *Workspace) Ingest(ctx context.Context, inputs []string, opt IngestOptions) ([]ingest.FileResult, error) {
	if !w.write {
		return nil, errors.New("incident opened read-only")
	}
	w.saidIntake("the ingest did not end")
	files, err := ingest.Expand(inputs)
	if err != nil {
		return nil, err
	}
	attr, err := w.newAttributor(ctx)
	if err != nil {
		return nil, err
	}
	in, why := w.startIntake()
	iopt := ingest.Options{
		Format: opt.Format, Stdin: opt.Stdin, Progress: opt.Progress,
		Rejects: w.rejects, Store: w.store, Prepare: attr.prepare,
	}
	if in != nil {
		iopt.Taken = in.take
	}
	res, err := ingest.Run(ctx, files, iopt)
	if err == nil && killedAfterRun != nil {
		err = killedAfterRun()
	}
	if err == nil && !attr.since.IsZero() {
		// Session records arrived after events they concern.
		w.intaking = in
		_, err = w.Attribute(ctx, attr.since)
		w.intaking = nil
	}
	if serr := w.syncSources(ctx, files); serr != nil && err == nil {
		err = serr
	}
	if err == nil && attr.err != nil {
		err = fmt.Errorf("recording from when to attribute again (%s): %w", attributePending, attr.err)
	}
	switch {
	case in == nil:
	case err != nil || ctx.Err() != nil:
		in.abandon()
		why = "the ingest did not end"
	default:
		why = in.finish(ctx, w)
	}
	w.saidIntake(why)
	// What was read was received, whether or not the run then failed.
	if jerr := w.recordReceipts(context.WithoutCancel(ctx), opt.Actor, opt.From, res, opt.Growing, !opt.Growing); jerr != nil && err == nil {
		err = jerr
	}
	return res, err
}

// syncSources waits for the index to be on disk, then mirrors its
// checkpoints into sources.json. After a failed write the index holds
// checkpoints it could not store: sources.json is left as it was, behind
// what is on disk but never ahead of it.
func (w *Workspace) syncSources(ctx context.Context, files []string) error {
	if err := w.store.Sync(context.WithoutCancel(ctx)); err != nil {
		return err
	}
	return w.writeSources(files)
}

// Sources lists the checkpoints of every file ingested so far.
func (w *Workspace) Sources() ([]ingest.Checkpoint, error) {
	b, err := os.ReadFile(filepath.Join(w.Dir, sourcesFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []ingest.Checkpoint
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", sourcesFile, err)
	}
	return out, nil
}

// writeSources mirrors the checkpoints kept in the index into sources.json,
// for people and tools; the index's copy is the one resumes trust.
func (w *Workspace) writeSources(files []string) error {
	prev, _ := w.Sources()
	paths := map[string]bool{}
	for _, c := range prev {
		paths[c.Path] = true
	}
	for _, f := range files {
		if f != "-" {
			if abs, err := filepath.Abs(f); err == nil {
				paths[abs] = true
			}
		}
	}
	var out []ingest.Checkpoint
	for p := range paths {
		if c, ok := ingest.LoadCheckpoint(w.store, p); ok {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(w.Dir, sourcesFile), append(b, '\n'))
}

// writeAtomic replaces path with data via a synced temporary file.
func writeAtomic(path string, data []byte) error { return platform.WriteAtomic(path, data) }

// keepFile writes a file the workspace keeps for later reads (the kept
// result, the Assessment) by atomic rename, and nothing once the
// workspace was closed: work still running then (a run the consoles of a
// server shared) must not write into a folder its owner may be copying or
// removing.
func (w *Workspace) keepFile(path string, data []byte) error {
	return w.keepFileWith(path, func(out io.Writer) error {
		_, err := out.Write(data)
		return err
	})
}

// keepFileWith is keepFile of what write writes (platform.WriteAtomicWith).
func (w *Workspace) keepFileWith(path string, write func(io.Writer) error) error {
	w.keeping.RLock()
	defer w.keeping.RUnlock()
	if w.shut {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return platform.WriteAtomicWith(path, write)
}

// Rejects reads rejects.jsonl.
func (w *Workspace) Rejects() ([]parse.Reject, error) {
	return readRejects(filepath.Join(w.Dir, rejectsFile))
}

// Span is the time span of the incident's events, first to last.
func (w *Workspace) Span() (time.Time, time.Time) {
	c := w.store.Counts()
	return c.First, c.Last
}

// MainSpan is the span holding the bulk of the incident's events, and the
// few outside it (evidence.Counts.MainSpan), with exact bounds.
func (w *Workspace) MainSpan(ctx context.Context) (evidence.Span, error) {
	return w.store.Counts().MainSpan().Exact(ctx, w.store)
}

// Rebuild discards the index (and the rejects it produced) of dir, keeping
// the list of sources, and opens the workspace for writing. It returns the
// source paths to ingest again: the way forward after a mapping change.
func Rebuild(dir string, opts ...Option) (*Workspace, []string, error) {
	if err := journal.CheckWritable(dir, optionsOf(opts).shared); err != nil {
		return nil, nil, err
	}
	l, err := journal.LockWorkspace(dir, true)
	if err != nil {
		return nil, nil, err
	}
	if rec, err := readStoreRecord(dir); err != nil || rec != nil {
		l.Release()
		if err == nil {
			err = fmt.Errorf("%w: %s keeps its events in %s (case %s): --rebuild rebuilds the embedded index only; ingest into a new folder for a new case", ErrStore, dir, rec.Addr, rec.Case)
		}
		return nil, nil, err
	}
	var paths []string
	if b, err := os.ReadFile(filepath.Join(dir, sourcesFile)); err == nil {
		var cks []ingest.Checkpoint
		if err := json.Unmarshal(b, &cks); err != nil {
			l.Release()
			return nil, nil, fmt.Errorf("%s: %w", sourcesFile, err)
		}
		for _, c := range cks {
			paths = append(paths, c.Path)
		}
	}
	for _, name := range []string{indexDir, rejectsFile, sourcesFile} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			l.Release()
			return nil, nil, err
		}
	}
	l.Release()
	w, err := Create(dir, opts...)
	return w, paths, err
}

// writeMarker marks dir as a cordon workspace, once.
func writeMarker(dir string) error {
	p := filepath.Join(dir, markerFile)
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.WriteFile(p, []byte("cordon incident workspace\n"), journal.FileMode); err != nil && !journal.CannotWrite(err) {
		return fmt.Errorf("mark %s as a workspace: %w", dir, err)
	}
	return nil
}
