package detect

import (
	"context"
	"runtime"
	"strings"
	"sync"

	"github.com/cordon-ir/cordon/attribution"
	"github.com/cordon-ir/cordon/evidence"
)

// A replay reads its events on one goroutine and adds them on another:
// the reader matches each against the pass's queries as it comes (what
// Add would ask them) and parses each tool call (what the correlations
// that read calls would), in batches, so the adding goroutine, which runs
// every correlator in turn and sets a replay's pace, only reads the
// answers. Both depend on the event alone, as Add sees it: an event the
// pass attributes itself is matched and parsed again after (its agent
// may change), and an event handed to add other than the one read (a
// caller's copy) is matched and parsed as Add does any.

// replayBatch is how many events the reader hands over at a time, and
// replayAhead how many batches it may have read ahead of the adder.
const (
	replayBatch = 512
	replayAhead = 2
)

// Replay adds every event of src, in time order, to p.
func (p *Pass) Replay(ctx context.Context, src Source) error {
	return p.ReplayVia(ctx, src, (*Pass).Add)
}

// ReplayVia hands every event of src, in time order, to add with p: a
// pass of a share of the agents adds its own events and gives it the
// others' as a peer's (AddPeer). The event add is handed is the replay's
// own copy, which Add changes in place (its strings interned) rather
// than copy it again: add must not read it after. Read from a LeanSource,
// it holds no origin, nor a message or a record as written where the pass
// reads none (each).
func (p *Pass) ReplayVia(ctx context.Context, src Source, add func(*Pass, *evidence.Event) error) error {
	if runtime.GOMAXPROCS(0) < 2 {
		return p.replayHere(ctx, src, add)
	}
	return p.replayBeside(ctx, src, add)
}

// each reads every event of src, in time order, for a replay: without
// what the pass does not read, when src can leave it out (LeanSource):
// the origins, and the text of the proxies' and sensors' records unless a
// rule may read any event's text.
func (p *Pass) each(ctx context.Context, src Source, fn func(evidence.Event) error) error {
	ls, ok := src.(LeanSource)
	switch {
	case !ok:
		return src.Each(ctx, evidence.All(), fn)
	case p.rulesReadText:
		return ls.EachLean(ctx, func(string, string) bool { return true }, fn)
	}
	return ls.EachLean(ctx, detectorsReadText, fn)
}

// detectorsReadText says whether the detectors may read the text (the
// message, the record as written) of an event of this source and kind.
// They read it of the ledger's tool calls and results (a call's read_only
// and retry_of, credentials and keys a call names or a tool printed, a
// job's id), of session starts (the kinds of the credentials issued, the
// egress address), of summaries and a person's interventions, and of the
// audit records (CloudTrail's, Kubernetes', GitHub's objects): never of a
// proxy's or a sensor's record, which are most of an incident and most of
// its bytes, nor of the ledger's other records (its policy decisions,
// requests, file writes, prompts: at ten million events their text was
// 9% of what a replay allocated). A replay of copies that leave those
// out gives the answer of the whole events
// (TestReplayWithoutWhatTheDetectorsDoNotRead).
func detectorsReadText(source, kind string) bool {
	switch kind {
	case evidence.KindToolCall, evidence.KindToolResult, evidence.KindSessionStart, evidence.KindSummary, evidence.KindHumanIntervention:
		return true
	}
	return source != evidence.SourceProxy && source != evidence.SourceSensor && source != evidence.SourceLedger
}

// replayHere reads and adds on the caller's goroutine.
func (p *Pass) replayHere(ctx context.Context, src Source, add func(*Pass, *evidence.Event) error) error {
	// one buffer for every event: Add reads it and copies what it keeps
	buf := new(evidence.Event)
	n := 0
	return p.each(ctx, src, func(ev evidence.Event) error {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		*buf = ev
		return add(p, buf)
	})
}

// matchedBatch is events read and what each matched: memo holds, for
// the i-th event, the pass's memo (matches) at i*len(p.matchers), and
// calls[i] its call parsed (nil when it is not a tool call), its strings
// not yet interned.
type matchedBatch struct {
	evs   []evidence.Event
	memo  []uint8
	calls []*call
}

// replayBeside reads and matches on a goroutine of its own, and adds on
// the caller's.
func (p *Pass) replayBeside(ctx context.Context, src Source, add func(*Pass, *evidence.Event) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// a fixed set of batches goes round: the reader fills one while two
	// wait and the adder reads the fourth, and the reader waits for one
	// handed back rather than make another (made whenever none was back
	// yet, a ten-million replay made and dropped 581 of them: 240 MB of
	// its allocation, docs/performance.md)
	full := make(chan *matchedBatch, replayAhead)
	free := make(chan *matchedBatch, replayAhead+2)
	width := len(p.matchers)
	for range cap(free) {
		free <- &matchedBatch{evs: make([]evidence.Event, 0, replayBatch),
			memo: make([]uint8, 0, replayBatch*width), calls: make([]*call, 0, replayBatch)}
	}
	var read error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(full)
		m := newPrematch(p)
		b := <-free
		send := func() error {
			select {
			case full <- b:
			case <-ctx.Done():
				return ctx.Err()
			}
			select {
			case b = <-free:
				b.evs, b.memo, b.calls = b.evs[:0], b.memo[:0], b.calls[:0]
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		}
		n := 0
		read = p.each(ctx, src, func(ev evidence.Event) error {
			if n++; n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			b.evs = append(b.evs, ev)
			last := &b.evs[len(b.evs)-1]
			b.memo = m.match(last, b.memo)
			var c *call
			if last.Kind == evidence.KindToolCall {
				c = parseCall(last, asItIs, &m.cmds)
			}
			b.calls = append(b.calls, c)
			if len(b.evs) == replayBatch {
				return send()
			}
			return nil
		})
		if read == nil && len(b.evs) > 0 {
			read = send()
		}
	}()
	var added error
	for b := range full {
		for i := range b.evs {
			if added != nil {
				break
			}
			ev := &b.evs[i]
			p.read = readAhead{ev: ev, memo: b.memo[i*width : (i+1)*width], call: b.calls[i]}
			added = add(p, ev)
		}
		p.read = readAhead{}
		if added != nil {
			cancel() // the reader stops at its next event
			continue // and the batches it sent are let go
		}
		free <- b // never full: there are only cap(free) batches
	}
	wg.Wait()
	if added != nil {
		return added
	}
	return read
}

// prematch is the reader's side of a replay: the pass's queries, and its
// own plan per kind (the pass's are the adding goroutine's).
type prematch struct {
	p      *Pass
	byKind map[string][]uint8
	cmds   cmdCache // the reader's: the adding goroutine's is its env's
}

func newPrematch(p *Pass) *prematch {
	return &prematch{p: p, byKind: map[string][]uint8{}}
}

// match appends to memo the answers of every query the streams of ev's
// kind ask, as matches records them (1 no, 2 yes; the queries its kind
// rules out, 1).
func (m *prematch) match(ev *evidence.Event, memo []uint8) []uint8 {
	start := m.byKind[ev.Kind]
	if start == nil {
		start = m.p.kindMemo(ev.Kind)
		if len(m.byKind) < maxKindPlans {
			m.byKind[strings.Clone(ev.Kind)] = start
		}
	}
	at := len(memo)
	memo = append(memo, start...)
	for j, v := range start {
		if v != 0 {
			continue
		}
		memo[at+j] = 1
		if m.p.matchers[j].Match(ev) {
			memo[at+j] = 2
		}
	}
	return memo
}

// asItIs keeps a string as it is: the reader parses calls without the
// pass's interning, which is the adding goroutine's (env.call).
func asItIs(s string) string { return s }

// readAhead is what the reader worked out of the event ev.
type readAhead struct {
	ev   *evidence.Event
	memo []uint8
	call *call
}

// takeRead gives what the reader worked out of ev, when it holds for the
// event add reads: ev is the one read, and the pass does not attribute it
// (zero otherwise). It is taken once.
func (p *Pass) takeRead(ev *evidence.Event) readAhead {
	r := p.read
	p.read = readAhead{}
	if r.ev != ev || p.e.Attribute && ev.AttributedVia == "" && attribution.Attributable(ev) {
		return readAhead{}
	}
	return r
}
