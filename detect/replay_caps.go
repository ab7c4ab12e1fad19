package detect

import (
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// While a replay adds, the capability scan (and the clock skews the scan
// thins by) runs on a goroutine of its own, a batch behind the pass: it
// was a quarter of the adding goroutine's time, which set a replay's pace.
// The answer is the one the scan gives in step, because the scan and the
// correlators share nothing either changes while the replay adds:
//   - the scan reads an event's fields, and the sessions and bindings the
//     pass began with; a session record the pass did not know (learn)
//     changes them, so the pass waits for the scan to catch up first;
//   - the correlators never read the scan, and the scan interns nothing
//     in the pass's table;
//   - an event is the replay's own copy in its batch, which goes back to
//     the reader only once the scan has taken it (an event the pass
//     attributed itself, or a caller's, is copied for the scan), and
//     which the pass no longer changes once handed over;
//   - a sweep's thinning is handed over in its place among the events.
//
// A pass that attributes events itself keeps the scan in step: attributing
// notes what the sensors saw of responders' processes in the bindings the
// scan reads.

// capsBeside is the scan's goroutine and what is handed to it.
type capsBeside struct {
	work  chan capsWork
	done  chan struct{} // closed when the goroutine ends
	items []capsItem    // the batch being added
}

// capsItem is an event for the scan, or (ev nil) a sweep at thin.
type capsItem struct {
	ev   *evidence.Event
	thin time.Time
}

// capsWork is a batch's items; release runs once they are taken (nil:
// none), caught (non-nil) is closed then.
type capsWork struct {
	items   []capsItem
	release func()
	caught  chan struct{}
}

// runCapsBeside starts the scan's goroutine for p.
func (p *Pass) runCapsBeside() {
	b := &capsBeside{work: make(chan capsWork, 2), done: make(chan struct{})}
	go func() {
		defer close(b.done)
		for w := range b.work {
			for _, it := range w.items {
				if it.ev == nil {
					p.caps.thin(it.thin, p.skew)
					continue
				}
				p.caps.add(0, it.ev)
				p.skew.add(it.ev)
			}
			if w.release != nil {
				w.release()
			}
			if w.caught != nil {
				close(w.caught)
			}
		}
	}()
	p.beside = b
}

// toCaps hands ev to the scan: to its goroutine when it runs beside, ev
// then being the replay's own (owned) or copied.
func (p *Pass) toCaps(ev *evidence.Event, owned bool) {
	if p.beside == nil {
		p.caps.add(0, ev)
		p.skew.add(ev)
		return
	}
	if !owned {
		cp := *ev
		ev = &cp
	}
	p.beside.items = append(p.beside.items, capsItem{ev: ev})
}

// thinCaps thins the scan's capabilities at now, in its place among the
// events when the scan runs beside.
func (p *Pass) thinCaps(now time.Time) {
	if p.beside == nil {
		p.caps.thin(now, p.skew)
		return
	}
	p.beside.items = append(p.beside.items, capsItem{thin: now})
}

// handCaps hands the batch's items over; release runs once the scan has
// taken them.
func (p *Pass) handCaps(release func()) {
	b := p.beside
	if b == nil {
		if release != nil {
			release()
		}
		return
	}
	b.work <- capsWork{items: b.items, release: release}
	b.items = nil
}

// catchCaps waits for the scan to take everything handed to it, so that
// what it reads may change.
func (p *Pass) catchCaps() {
	if p.beside == nil {
		return
	}
	caught := make(chan struct{})
	p.beside.work <- capsWork{items: p.beside.items, caught: caught}
	p.beside.items = nil
	<-caught
}

// stopCaps hands over what is left, waits for the scan to take it and
// ends its goroutine: the scan is the pass's again.
func (p *Pass) stopCaps() {
	b := p.beside
	if b == nil {
		return
	}
	if len(b.items) > 0 {
		b.work <- capsWork{items: b.items}
	}
	close(b.work)
	<-b.done
	p.beside = nil
}
