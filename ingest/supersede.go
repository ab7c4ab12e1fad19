package ingest

import (
	"context"
	"errors"
	"fmt"

	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// A request's earlier stage is given alone when its input ends before the
// last stage (a log still being written, a rotated file, the end of a
// webhook batch) or when a stream holds too many (maxHeld). Its event is
// indexed, tagged parse.TagStage, and its later stage, read by a later run
// or from another file, must replace it rather than be skipped as an id
// already stored. A run keeps the ids of those open requests, loaded once
// from the index (tags:stage:*) and kept up to date as it gives more, and
// hands a later stage of one to the writer as a replacement.

// maxOpen bounds the open requests a run keeps: a log whose requests
// never complete (an audit policy that logs RequestReceived alone) would
// grow it without end. A request past it keeps its earlier stage.
const maxOpen = 1 << 16

// stageBook holds, for one run, the requests whose event in the index (or
// on its way there) is an earlier stage, by id.
type stageBook struct {
	loaded map[string]bool // formats whose open requests were read from the index
	open   map[string]openStage
}

// openStage is the stage a request's event stands at.
type openStage struct {
	rank    int
	thisRun bool // given by this run, and counted in its events
}

func newStageBook() *stageBook {
	return &stageBook{loaded: map[string]bool{}, open: map[string]openStage{}}
}

// load reads the open requests of a format from the store, once per run.
func (k *stageBook) load(ctx context.Context, st evidence.Store, format string, p parse.Stager) error {
	if k.loaded[format] {
		return nil
	}
	h, err := st.Search(ctx, evidence.Request{
		Query: evidence.And(evidence.Term("format", format), evidence.Prefix("tags", parse.TagStage)),
		Limit: maxOpen,
	})
	if err != nil {
		return fmt.Errorf("%w: open requests of %s: %w", errStore, format, err)
	}
	k.loaded[format] = true
	for i := range h.Events {
		if r, last := p.Stage(&h.Events[i]); r > 0 && !last {
			k.mark(h.Events[i].ID, openStage{rank: r})
		}
	}
	return nil
}

func (k *stageBook) mark(id string, o openStage) {
	if _, ok := k.open[id]; ok || len(k.open) < maxOpen {
		k.open[id] = o
	}
}

// batchStages is a batcher's part in it: the earlier stages given alone
// in the batch being filled (replaced in place by a later stage), and the
// later stages of requests already given (replacements for the writer).
type batchStages struct {
	p         parse.Stager
	book      *stageBook
	inBatch   map[string]int // id -> index in the batch's events
	replace   []evidence.Event
	inReplace map[string]int // id -> index in replace
	counted   int            // replacements counted as events of this run
}

// take handles the event of a request's stage: true when it went in place
// of an earlier one (in the batch, or as a replacement of one given
// before), false when it is to be added as any event.
func (s *batchStages) take(b *batcher, ev evidence.Event) (bool, error) {
	rank, last := s.p.Stage(&ev)
	if rank == 0 {
		return false, nil
	}
	if err := s.book.load(b.w.ctx, b.opt.Store, b.format, s.p); err != nil {
		return false, err
	}
	if i, ok := s.inBatch[ev.ID]; ok {
		// given alone earlier in this batch: the later stage takes its place
		old := &b.events[i]
		if r, _ := s.p.Stage(old); r <= rank {
			if old.Time.Before(ev.Time) {
				ev.Time = old.Time
			}
			parse.KeepDuplicates(old, &ev)
			b.bytes += ev.Size() - old.Size()
			*old = ev
			s.note(ev.ID, rank, last)
			if last {
				delete(s.inBatch, ev.ID)
			}
		} else {
			n := old.Size()
			parse.KeepDuplicates(&ev, old)
			b.bytes += old.Size() - n
		}
		b.res.Merged++
		return true, nil
	}
	if o, ok := s.book.open[ev.ID]; ok && rank > o.rank {
		// given alone before this batch: the writer replaces it
		if j, ok := s.inReplace[ev.ID]; ok {
			parse.KeepDuplicates(&s.replace[j], &ev)
			b.bytes += ev.Size() - s.replace[j].Size()
			s.replace[j] = ev
			b.res.Merged++
		} else {
			s.inReplace[ev.ID] = len(s.replace)
			s.replace = append(s.replace, ev)
			b.bytes += ev.Size()
			if o.thisRun {
				b.res.Merged++ // its event is the one this run gave already
			} else {
				b.res.Events++
				b.span(ev.Time)
				s.counted++
			}
		}
		s.note(ev.ID, rank, last)
		return true, nil
	} else if ok {
		return false, nil // as late a stage was given: the store skips this one
	}
	if !last {
		s.inBatch[ev.ID] = len(b.events)
		s.note(ev.ID, rank, last)
	}
	return false, nil
}

// note records what the index will hold for a request.
func (s *batchStages) note(id string, rank int, last bool) {
	if last {
		delete(s.book.open, id)
		return
	}
	thisRun := true
	if o, ok := s.book.open[id]; ok {
		thisRun = o.thisRun
	}
	s.book.mark(id, openStage{rank: rank, thisRun: thisRun})
}

// flush hands the batch's replacements to its job.
func (s *batchStages) flush(j *job, res *FileResult, pr *progress) {
	if len(s.replace) > 0 {
		n := s.counted
		j.replace, j.stager = s.replace, s.p
		j.replaced = func(fresh int) {
			res.Stored += n
			res.New += fresh
			pr.stored(fresh)
		}
	}
	s.replace, s.counted = nil, 0
	clear(s.inReplace)
	clear(s.inBatch)
}

// supersede writes a job's replacements before its events and checkpoint:
// a run that stops between the two reads the later stages again, and
// finds them already in the index. Each replaces the stored event of its
// request unless that already holds as late a stage (the same record read
// twice); one the index does not hold is added.
func (w *writer) supersede(j job) error {
	// The earlier stages may still be on their way to the index.
	if err := w.store.Sync(w.ctx); err != nil {
		return err
	}
	var repl, add []evidence.Event
	for _, ev := range j.replace {
		old, err := w.store.Get(w.ctx, ev.ID)
		if errors.Is(err, evidence.ErrNotFound) {
			add = append(add, ev)
			continue
		}
		if err != nil {
			return fmt.Errorf("read event %s to replace: %w", ev.ID, err)
		}
		r0, _ := j.stager.Stage(&old)
		if r, _ := j.stager.Stage(&ev); r0 >= r {
			continue
		}
		ev.Time = old.Time // when the request was received
		parse.KeepDuplicates(&old, &ev)
		repl = append(repl, ev)
	}
	if _, err := w.store.Replace(w.ctx, repl); err != nil {
		return fmt.Errorf("replace earlier stages: %w", err)
	}
	fresh := 0
	if len(add) > 0 {
		n, err := w.store.Index(w.ctx, add, nil)
		if err != nil {
			return err
		}
		fresh = n
	}
	if err := w.store.Sync(w.ctx); err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.frozen {
		j.replaced(fresh)
	}
	return nil
}
