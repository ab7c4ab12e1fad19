package ingest

import (
	"github.com/cordon-ir/cordon/evidence"
	"github.com/cordon-ir/cordon/ingest/parse"
)

// MergeSink is a Sink told of the records Stream merged into the event of
// a later stage of the same request (parse.Stager): read, and in an event,
// though not one of their own.
type MergeSink interface {
	Merged(n int)
}

// maxHeld bounds the requests a stream holds waiting for their last
// stage: the requests in flight at one point of the log (a watch stays
// open for minutes). Past it the oldest is given as it stands.
const maxHeld = 4096

// stages merges, within one stream, the records a parse.Stager yields for
// the stages of one request: an earlier stage is held until the request's
// last stage comes (which is given in its place, keeping the first
// stage's time: when the request was received) or the input ends (then it
// is given as it stands, tagged with its stage). While a stage is held,
// the stream's checkpoint stays at the record it came from, so that a run
// that stops meanwhile reads it again instead of losing it; the records
// read again are the same events (same ids), which the store skips.
type stages struct {
	p     parse.Stager
	held  map[string]*heldStage
	queue []*heldStage // oldest record first; entries no longer held are skipped
}

type heldStage struct {
	ev   evidence.Event
	rank int
	at   Position // the start of the record it came from
	gone bool     // given or replaced: no longer held
}

func newStages(p parse.Parser) *stages {
	sp, ok := p.(parse.Stager)
	if !ok {
		return nil
	}
	return &stages{p: sp, held: map[string]*heldStage{}}
}

// add takes the event of one stage of a request, read from the record at
// at, and returns what is to be given now (the request's merged event when
// this is its last stage, the oldest held request past maxHeld) and how
// many records were merged.
func (s *stages) add(ev evidence.Event, at Position) (out []evidence.Event, merged int) {
	rank, last := s.p.Stage(&ev)
	if rank == 0 {
		return []evidence.Event{ev}, 0
	}
	h := s.held[ev.ID]
	if h != nil {
		merged = 1
		if h.rank > rank {
			parse.KeepDuplicates(&ev, &h.ev)
			return nil, merged // an earlier stage read late: the held one says more
		}
		if h.ev.Time.Before(ev.Time) {
			ev.Time = h.ev.Time
		}
		parse.KeepDuplicates(&h.ev, &ev)
		h.gone = true
		delete(s.held, ev.ID)
	}
	if last {
		return []evidence.Event{ev}, merged
	}
	h = &heldStage{ev: ev, rank: rank, at: at}
	s.held[ev.ID] = h
	s.queue = append(s.queue, h)
	if len(s.held) > maxHeld {
		old := s.oldest()
		old.gone = true
		delete(s.held, old.ev.ID)
		out = append(out, old.ev)
	}
	return out, merged
}

// oldest is the held stage read first, nil when none is held.
func (s *stages) oldest() *heldStage {
	for len(s.queue) > 0 && s.queue[0].gone {
		s.queue[0] = nil
		s.queue = s.queue[1:]
	}
	if len(s.queue) == 0 {
		return nil
	}
	return s.queue[0]
}

// safe is where a stream that stopped at pos resumes without losing a
// held stage: the record of the oldest one, if any is held.
func (s *stages) safe(pos Position) Position {
	if s == nil {
		return pos
	}
	if h := s.oldest(); h != nil && h.at.Offset < pos.Offset {
		at := h.at
		at.Streaming = pos.Streaming
		return at
	}
	return pos
}

// rest gives the stages still held, in the order they were read, and
// holds none.
func (s *stages) rest() []evidence.Event {
	if s == nil {
		return nil
	}
	var out []evidence.Event
	for _, h := range s.queue {
		if !h.gone {
			out = append(out, h.ev)
		}
	}
	s.held, s.queue = map[string]*heldStage{}, nil
	return out
}
