package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// ErrUnreadable: an input file could not be opened or read.
var ErrUnreadable = errors.New("unreadable input")

// ErrNoEvents: an input that is not empty, read from its start, gave no
// event (FileResult.NoEvents says why). Run reports it in the result; the
// caller decides that it fails the ingest.
var ErrNoEvents = errors.New("no events from a non-empty input")

// Options control a run of Ingest.
type Options struct {
	Format    string           // force a format instead of sniffing
	BatchSize int              // events per index batch (default 2000)
	Stdin     io.Reader        // read for the input "-"
	Rejects   RejectLog        // where malformed records go
	Progress  func(Progress)   // called about twice a second, and at the end
	Parsers   []parse.Parser   // default Parsers()
	Now       func() time.Time // for tests
	Store     evidence.Store   // where events go
	// BatchBytes ends a batch early once its events hold this many bytes
	// of text (default DefaultBatchBytes): a batch is prepared, indexed
	// and kept until it is on disk, so its size is what ingest's memory
	// grows with, and hostile records are megabytes each.
	BatchBytes int
	// Prepare, if set, sees every event before it is indexed, in input
	// order (attribution sets the agent here).
	Prepare func(*evidence.Event)
	// Taken, if set, is called with each batch once the store has taken
	// it, in the order the batches were read, on the goroutine that
	// writes them: its events as the store keeps them (the fields it
	// cut named), those already stored included (the store keeps the
	// first), and replaced, the stored events the batch rewrote (a
	// request's later stage). The slices are the batch's own, never
	// reused; they must not be changed.
	Taken func(events, replaced []evidence.Event)
	// Bounded reads each file up to the size it had when the run opened
	// it: a follow's round takes what was written before it began, and
	// what is appended meanwhile is the next round's. A round that chased
	// a file written as fast as it is read would not end, and its events
	// would wait for it, the detectors' with them.
	Bounded bool
}

// DefaultBatchBytes is the default Options.BatchBytes.
const DefaultBatchBytes = 16 << 20

// RejectLog keeps rejected records; Add must be durable when it returns.
type RejectLog interface {
	Add(rs []parse.Reject) error
}

// FileResult summarizes one input.
type FileResult struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	Events int    `json:"events"` // parsed this run
	// Stored counts the events of this run on disk, with the checkpoint
	// that covers them: all of Events unless the store failed to write.
	Stored  int `json:"stored"`
	New     int `json:"new"`     // stored, and not in the index before
	Rejects int `json:"rejects"` // malformed records this run
	// Routine counts the events of this run tagged routine
	// (parse.TagRoutine: runs of read-only Describe and List calls in a
	// cloud audit log, health probes): indexed like every other, and
	// found again with tags:routine.
	Routine int `json:"routine,omitempty"`
	// Merged counts the records that were an earlier stage of a request
	// (a Kubernetes RequestReceived before its ResponseComplete): read,
	// and in the index as the event of the request's later stage.
	Merged    int   `json:"merged,omitempty"`
	ResumedAt int64 `json:"resumed_at,omitempty"`
	// Held is the last line left unread: no newline after it and it does
	// not parse, so it may be a line still being written (see Stream).
	// The next run reads it again; until then it is here (where, how
	// long and why, without its data), not lost.
	Held *parse.Reject `json:"held,omitempty"`
	// NoEvents says why an input read from its start gave no event though
	// it held more than blank lines and valid empty containers ({"Records":[]}):
	// its first rejected record, or its held last line. "" otherwise, and
	// for a run that resumed (it added nothing new, which is no loss).
	NoEvents string `json:"no_events,omitempty"`
	// Received is what was read, for the chain of custody; nil when the
	// input could not be opened.
	Received    *Received `json:"received,omitempty"`
	First, Last time.Time `json:"-"`
	Err         error     `json:"-"`
}

// Partial says the input failed after it gave records: what it gave is
// stored, the rest of it is missing. An input with Err and not Partial
// was not ingested at all.
func (r FileResult) Partial() bool { return r.Err != nil && r.Events+r.Rejects > 0 }

// Progress is a snapshot of a running ingest.
type Progress struct {
	Files, FilesDone int
	Events           int64 // searchable
	New              int64 // on disk, and not in the index before
	Bytes, Total     int64 // bytes read and to read (0 when unknown)
	Elapsed          time.Duration
	Done             bool
}

// Expand turns command-line inputs into files: folders are walked (hidden
// entries skipped, and anything but regular files and links to them), "-"
// stays as stdin. An input named on its own that is neither a regular file
// (or a link to one) nor a folder is refused with ErrUnreadable: see
// NotRegular. A broken symbolic link, named or in a folder, is refused
// with ErrUnreadable naming it and where it points (BrokenLink): evidence
// that is not there is never passed over without a word.
func Expand(inputs []string) ([]string, error) {
	var out []string
	for _, in := range inputs {
		if in == "-" {
			out = append(out, in)
			continue
		}
		info, err := os.Stat(in)
		if err != nil {
			if berr := BrokenLink(in); berr != nil {
				return nil, berr
			}
			return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
		}
		if !info.IsDir() {
			if !info.Mode().IsRegular() {
				return nil, NotRegular(in, info.Mode())
			}
			out = append(out, in)
			continue
		}
		var found, links []string
		err = filepath.WalkDir(in, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != in && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case isDoc(d.Name()):
			case d.Type().IsRegular():
				found = append(found, p)
			case d.Type()&fs.ModeSymlink != 0:
				links = append(links, p)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
		}
		found, err = withLinks(found, links)
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// isDoc skips the prose that travels with evidence folders.
func isDoc(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".txt.md", ".yaml", ".yml", ".sha256":
		return true
	}
	return false
}

// Run ingests files into opt.Store. A file that cannot be read or sniffed
// is reported in its FileResult and the others go on; the error returned is
// for the run as a whole (the store failing, the context ending).
func Run(ctx context.Context, files []string, opt Options) ([]FileResult, error) {
	if opt.BatchSize <= 0 {
		opt.BatchSize = 2000
	}
	if opt.BatchBytes <= 0 {
		opt.BatchBytes = DefaultBatchBytes
	}
	if opt.Parsers == nil {
		opt.Parsers = Parsers()
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	defer tuneGC()()
	pr := &progress{opt: opt, start: opt.Now(), p: Progress{Files: len(files)}}
	for _, f := range files {
		if f != "-" {
			if info, err := os.Stat(f); err == nil {
				pr.p.Total += info.Size()
			}
		}
	}
	w := newWriter(ctx, opt)
	book := newStageBook()
	var results []*FileResult
	collect := func(err error) ([]FileResult, error) {
		if werr := w.close(); err == nil {
			err = werr
		}
		// Nothing counts as ingested before it is on disk: success,
		// Stored and the checkpoints the caller reports wait for it.
		// An interrupted run waits too, to report what it kept.
		serr := opt.Store.Sync(context.WithoutCancel(ctx))
		switch {
		case errors.Is(serr, evidence.ErrWrite):
			err = serr // the store's own account, without the layers it came up through
		case serr != nil && err == nil:
			err = fmt.Errorf("%w: %w", errStore, serr)
		}
		out := make([]FileResult, len(results))
		w.freeze(func() {
			for i, r := range results {
				out[i] = *r
			}
		})
		if errors.Is(err, evidence.ErrWrite) {
			err = &WriteError{Stored: storedEvents(out), Read: readEvents(out), Err: err}
		}
		return out, err
	}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return collect(err)
		}
		res, err := ingestFile(ctx, f, opt, pr, w, book)
		results = append(results, res)
		pr.fileDone()
		if err != nil {
			return collect(err)
		}
	}
	// A read that the context cut short is the run's end, not the file's.
	out, err := collect(ctx.Err())
	if err == nil {
		pr.finish()
	}
	return out, err
}

// ingestFile ingests one input from its checkpoint, handing its batches to
// w. Errors about the file itself go in the result; the returned error
// stops the run. The result's New count is final once w is closed.
func ingestFile(ctx context.Context, path string, opt Options, pr *progress, w *writer, book *stageBook) (*FileResult, error) {
	res := &FileResult{Path: path}
	src, err := openSource(ctx, path, opt)
	if err != nil {
		res.Err = err
		return res, nil
	}
	defer src.Close()
	// Said last, once everything this run reads has gone through the digest.
	defer func() { res.Received = src.received(path) }()
	ck := src.checkpoint
	start, err := byteOrderMark(src.r, ck.Offset)
	if err != nil {
		res.Err = err
		return res, nil
	}
	var p parse.Parser
	switch {
	case opt.Format != "":
		p, err = ByFormatIn(opt.Parsers, opt.Format)
	case ck.Format != "" && ck.Offset > 0:
		p, err = ByFormatIn(opt.Parsers, ck.Format)
	default:
		p, err = Sniff(src.r, opt.Parsers)
	}
	if err != nil {
		res.Err = err
		return res, nil
	}
	res.Format, res.ResumedAt = p.Format(), ck.Offset
	b := &batcher{opt: opt, res: res, src: src, pr: pr, w: w, format: p.Format()}
	if sp, ok := p.(parse.Stager); ok {
		b.stages = &batchStages{p: sp, book: book, inBatch: map[string]int{}, inReplace: map[string]int{}}
	}
	at := Position{Offset: start, Line: ck.Line, Streaming: ck.Streaming}
	final, err := Stream(src.input(p), src.name, p, at, b, b.commit)
	switch {
	case err == nil:
	case errors.Is(err, errStore):
		return res, err
	case src.gz && errors.Is(err, io.ErrUnexpectedEOF):
		// a copy or upload cut short, a log being compressed when its
		// sandbox was killed: what it holds is read and kept
		res.Err = fmt.Errorf("%w: the gzip stream is cut short: the records before its end are read, the rest of the file is missing", ErrUnreadable)
	default:
		res.Err = fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	if err := b.flush(final, true); err != nil {
		return res, err
	}
	res.NoEvents = b.noEvents()
	return res, nil
}

// maxReasonText bounds what NoEvents quotes of a reason or an origin.
const maxReasonText = 300

// noEvents says why the input gave no event, if it was read from its
// start and something in it was rejected or held.
func (b *batcher) noEvents() string {
	res := b.res
	if res.Events > 0 || res.Merged > 0 || res.ResumedAt > 0 || res.Err != nil {
		return ""
	}
	// Reasons quote the record; the journal keeps this line, not the record.
	cut := func(s string) string { return parse.CutText(parse.OneLine(s), maxReasonText) }
	switch {
	case b.first != nil:
		r := b.first
		return fmt.Sprintf("%d record(s) rejected, the first at %s (byte %d): %s", res.Rejects, cut(r.Origin), r.Offset, cut(r.Reason))
	case res.Held != nil:
		return fmt.Sprintf("its last line, at %s (byte %d), %s", cut(res.Held.Origin), res.Held.Offset, res.Held.Reason) // bounded by Stream
	}
	return ""
}

// errStore marks failures of the store or reject log, which end the run.
var errStore = errors.New("store")

// batcher buffers events and rejects and writes them with the checkpoint
// that covers them, so that a crash resumes exactly after the last batch.
type batcher struct {
	opt     Options
	w       *writer
	res     *FileResult
	src     *source
	pr      *progress
	format  string
	events  []evidence.Event
	bytes   int // Size of the events
	rejects []parse.Reject
	first   *parse.Reject // the input's first reject this run, for NoEvents
	stages  *batchStages  // for a parse.Stager's requests; nil for other formats
}

func (b *batcher) Event(ev evidence.Event) error {
	if b.opt.Prepare != nil {
		b.opt.Prepare(&ev)
	}
	if slices.Contains(ev.Tags, parse.TagRoutine) {
		b.res.Routine++
	}
	if b.stages != nil {
		took, err := b.stages.take(b, ev)
		if took || err != nil {
			return err
		}
	}
	b.add(ev)
	return nil
}

// add puts an event in the batch.
func (b *batcher) add(ev evidence.Event) {
	b.events = append(b.events, ev)
	b.bytes += ev.Size()
	b.res.Events++
	b.span(ev.Time)
}

// span widens the file's time span to t.
func (b *batcher) span(t time.Time) {
	if b.res.First.IsZero() || t.Before(b.res.First) {
		b.res.First = t
	}
	if t.After(b.res.Last) {
		b.res.Last = t
	}
}

// Merged counts records Stream merged into a later stage's event.
func (b *batcher) Merged(n int) { b.res.Merged += n }

func (b *batcher) Reject(r parse.Reject) error {
	r = r.Bounded()
	b.rejects = append(b.rejects, r)
	b.res.Rejects++
	if b.first == nil {
		b.first = &parse.Reject{Origin: r.Origin, Offset: r.Offset, Reason: r.Reason} // not its data
	}
	return nil
}

// Held keeps the last line Stream left unread.
func (b *batcher) Held(r parse.Reject) { b.res.Held = &r }

func (b *batcher) commit(pos Position) error {
	if len(b.events) < b.opt.BatchSize && b.bytes < b.opt.BatchBytes && len(b.rejects) < b.opt.BatchSize {
		return nil
	}
	return b.flush(pos, false)
}

func (b *batcher) flush(pos Position, final bool) error {
	state := map[string][]byte{}
	if ck, ok := b.src.advance(pos, b.format, final); ok {
		state[ck.key()] = ck.encode()
	}
	events, res, pr := b.events, b.res, b.pr
	n := len(events)
	read := pos.Offset - b.src.lastOffset
	b.src.lastOffset = pos.Offset
	j := job{events: events, rejects: b.rejects, state: state, bytes: b.bytes,
		landed: func() { pr.add(n, read) },
		stored: func(fresh int) { // kept until the batch is on disk: no events
			res.Stored += n
			res.New += fresh
			pr.stored(fresh)
		},
	}
	if b.stages != nil {
		b.stages.flush(&j, res, pr)
	}
	// The batch now belongs to the writer; fill fresh buffers meanwhile.
	b.events = make([]evidence.Event, 0, cap(b.events))
	b.bytes, b.rejects = 0, nil
	return b.w.send(j)
}

// ByFormatIn finds a parser by format name in a list.
func ByFormatIn(ps []parse.Parser, name string) (parse.Parser, error) {
	for _, p := range ps {
		if p.Format() == name {
			return p, nil
		}
	}
	return ByFormat(name)
}
