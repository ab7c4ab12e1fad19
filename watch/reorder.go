package watch

import (
	"container/heap"
	"time"

	"github.com/cordon-ir/cordon/detect"
	"github.com/cordon-ir/cordon/evidence"
)

// Buffer puts events back in the engine's order (time, then id) before
// they reach the Pass. Sources reach the stream late by different amounts
// (a proxy log shipped every few seconds, a sensor that batches), so an
// event is held until the highest event time seen is Lateness past it, or
// until no event arrived for Idle of wall time (a quiet stream still
// answers). An event that arrives after events later than it were
// released is late: the Buffer does not take it (see Watcher). At most
// Max events are held; past that the earliest are released early.
type Buffer struct {
	Lateness time.Duration
	Idle     time.Duration
	Max      int

	h       itemHeap
	byID    map[string]*item
	highest time.Time // the latest event time pushed
	arrived time.Time // wall time of the last push
	// out is what the last Due gave, taken back at the next; free are
	// items to use again (at most maxFree): an item is an event's copy,
	// and a busy watcher pushes tens of thousands a second
	out, free []*item
}

const maxFree = 4096

// item is an event waiting, and what to settle once it was released: the
// deliveries that carried it (several when a later stage replaced it).
type item struct {
	ev   evidence.Event
	done []func()
	idx  int
}

// NewBuffer makes an empty buffer.
func NewBuffer(lateness, idle time.Duration, max int) *Buffer {
	return &Buffer{Lateness: lateness, Idle: idle, Max: max, byID: map[string]*item{}}
}

// Len is how many events wait.
func (b *Buffer) Len() int { return len(b.h) }

// Has reports whether an event of id waits.
func (b *Buffer) Has(id string) bool { return b.byID[id] != nil }

// Push holds a copy of ev until it is due; done (nil: nothing) is called
// once it was released and what it changed was published. An event of an
// id already waiting replaces it (a request's later stage).
func (b *Buffer) Push(ev *evidence.Event, done func(), now time.Time) {
	b.arrived = now
	if ev.Time.After(b.highest) {
		b.highest = ev.Time
	}
	if it := b.byID[ev.ID]; it != nil {
		it.ev = *ev
		if done != nil {
			it.done = append(it.done, done)
		}
		heap.Fix(&b.h, it.idx)
		return
	}
	var it *item
	if n := len(b.free); n > 0 {
		it, b.free = b.free[n-1], b.free[:n-1]
	} else {
		it = new(item)
	}
	it.ev = *ev
	if done != nil {
		it.done = append(it.done, done)
	}
	b.byID[ev.ID] = it
	heap.Push(&b.h, it)
}

// Due pops the events due at wall time now, in the engine's order: those
// Lateness behind the highest event time, every one when the stream was
// quiet for Idle, and the earliest past Max. The items are the caller's
// until the next Due, which takes them back.
func (b *Buffer) Due(now time.Time) []*item {
	for _, it := range b.out {
		if len(b.free) >= maxFree {
			break
		}
		// neither the event's values nor what it settles are kept alive
		it.ev = evidence.Event{}
		clear(it.done)
		it.done = it.done[:0]
		b.free = append(b.free, it)
	}
	clear(b.out)
	quiet := b.Idle > 0 && now.Sub(b.arrived) >= b.Idle
	mark := b.highest.Add(-b.Lateness)
	out := b.out[:0]
	for len(b.h) > 0 {
		top := b.h[0]
		if !quiet && top.ev.Time.After(mark) && (b.Max <= 0 || len(b.h) <= b.Max) {
			break
		}
		heap.Pop(&b.h)
		delete(b.byID, top.ev.ID)
		out = append(out, top)
	}
	b.out = out
	return out
}

// Drain takes every event out and returns what they settle: a replay
// read them from the stream into its pass.
func (b *Buffer) Drain() []func() {
	var done []func()
	for _, it := range b.h {
		done = append(done, it.done...)
	}
	clear(b.h)
	b.h = b.h[:0]
	clear(b.byID)
	return done
}

// itemHeap orders items as the engine takes events.
type itemHeap []*item

func (h itemHeap) Len() int           { return len(h) }
func (h itemHeap) Less(i, j int) bool { return detect.Before(&h[i].ev, &h[j].ev) }
func (h itemHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *itemHeap) Push(x any) {
	it := x.(*item)
	it.idx = len(*h)
	*h = append(*h, it)
}
func (h *itemHeap) Pop() any {
	old := *h
	it := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return it
}
