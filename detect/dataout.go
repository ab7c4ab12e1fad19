package detect

import (
	"fmt"
	"strings"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// dataOut is data_exfiltration: the bytes an agent sent to one destination
// within the window, where its session's allowlist does not name that
// destination exactly (admitted by a wildcard only, or not at all). It is
// Go because the allowlist is data of the agent's session_start, and
// because one transfer is often seen by several sources (the ledger's
// net_event, the proxy, an egress gateway): each source's bytes are summed
// apart and the largest view counts, never their sum. The condition bounds
// those bytes.
type dataOut struct {
	r     *Rule
	e     *env
	sends map[string]*sends // agent + destination
	// opened are the sends with an open episode, in no order: what a
	// sweep closes is looked for among them, not among every agent and
	// destination seen (at ten million events, walking those at every
	// sweep grew with the square of the events)
	opened []*sends
	// touched are the sends a send was added to since done last looked,
	// in no order; found names the sends that
	// gave a finding then, in sortedKeys' order: done makes again only
	// what changed, and walks only the sends with a finding (21,000
	// agent-and-destination pairs at a million events, walking every one
	// at every answer of a follow took 7 ms of it)
	touched []*sends
	found   keyOrder
}

// sends are one agent's to one destination: the findings of its episodes
// closed (a send more than the window after the one before ends an
// episode: no later send joins it), and the sends of the one still open.
type sends struct {
	key     string // agent + "\x00" + destination
	listed  bool   // in dataOut.opened
	touched bool   // in dataOut.touched
	found   bool   // in dataOut.found
	closed  []Finding
	open    *openSends // nil: none open
	// made is the open episode's finding as done last made it, of how
	// many sends (they only grow: see adaptation's)
	made madeOf
}

// openSends is an open episode's sends as its finding reads them: each
// source's bytes summed, the methods in the order they came, the first
// send's allowlist (wildcard or none), and each send's hit, packed
// (citeList: 16 bytes the collector does not scan, where a send kept
// whole was 100 bytes and five strings).
type openSends struct {
	allow   string
	by      sourceBytes
	methods []string
	hits    citeList
}

func newDataOut(r *Rule, e *env) *dataOut {
	return &dataOut{r: r, e: e, sends: map[string]*sends{}}
}

func (d *dataOut) add(_ int, ev *evidence.Event) {
	dest := strings.ToLower(destination(ev))
	if ev.Agent == "" || dest == "" || ev.BytesOut <= 0 || isDenied(ev) {
		return
	}
	if i := strings.LastIndexByte(dest, ':'); i > 0 && !strings.Contains(dest[:i], ":") {
		dest = dest[:i]
	}
	allow := "none"
	if s := d.e.sessionAt(ev.Agent, ev.Time); s != nil {
		exact, wild := allowed(s.egress, dest)
		if exact {
			return
		}
		if wild {
			allow = "wildcard"
		}
	}
	k := ev.Agent + "\x00" + dest
	ss := d.sends[k]
	if ss == nil {
		ss = &sends{key: k}
		d.sends[k] = ss
	}
	d.closeBefore(k, ss, ev.Time)
	d.touch(ss)
	if ss.open == nil {
		ss.open = &openSends{allow: allow}
	}
	o := ss.open
	o.by = o.by.add(ev.Source, ev.BytesOut)
	if ev.Method != "" {
		o.methods = appendNew(o.methods, ev.Method)
	}
	o.hits.add(hit{t: ev.Time, id: ev.ID, agent: ev.Agent}, ev.Agent)
	if !ss.listed {
		ss.listed = true
		d.opened = append(d.opened, ss)
	}
}

// closeBefore ends the open episode when a send at t cannot join it (more
// than the window after its last): its finding, if the bytes meet the
// condition, is kept, its sends are not.
func (d *dataOut) closeBefore(k string, ss *sends, t time.Time) {
	if ss.open == nil || t.Sub(ss.open.hits.lastAt()) <= d.r.Correlation.Window {
		return
	}
	agent, dest, _ := strings.Cut(k, "\x00")
	if f, ok := d.finding(agent, dest, ss.open); ok {
		ss.closed = append(ss.closed, f)
	}
	// not touched: the closed finding is the one done made of the open
	// episode when it last looked, or, if a send came since, the add of
	// that send touched it
	ss.open, ss.made = nil, madeOf{}
}

// touch says ss changed since done last looked.
func (d *dataOut) touch(ss *sends) {
	if !ss.touched {
		ss.touched = true
		d.touched = append(d.touched, ss)
	}
}

// done gives every send's findings, by agent and destination: those of
// its closed episodes, then its open one's.
func (d *dataOut) done() []Finding {
	for _, ss := range d.touched {
		ss.touched = false
		if ss.open != nil && ss.made.n != ss.open.hits.len() {
			agent, dest, _ := strings.Cut(ss.key, "\x00")
			f, ok := d.finding(agent, dest, ss.open)
			ss.made = madeOf{n: ss.open.hits.len()}
			if ok {
				ss.made.fs = []Finding{f}
			}
		}
		if !ss.found && len(ss.closed)+len(ss.made.fs) > 0 {
			ss.found = true
			d.found.add(ss.key)
		}
	}
	clear(d.touched)
	d.touched = d.touched[:0]
	var out []Finding
	for _, k := range d.found.sorted() {
		ss := d.sends[k]
		out = append(out, ss.closed...)
		out = append(out, ss.made.fs...) // none once the episode closed
	}
	return out
}

// finding is the finding of one episode's sends, in time order: each
// source's bytes summed apart, the largest view counted (of two as large,
// the source first by name); false when those bytes do not meet the
// condition.
func (d *dataOut) finding(agent, dest string, o *openSends) (Finding, bool) {
	var bytes int64
	seenBy := ""
	for _, x := range o.by {
		if x.n > bytes || x.n == bytes && x.source < seenBy {
			bytes, seenBy = x.n, x.source
		}
	}
	if !d.r.Correlation.Condition.Holds(float64(bytes)) {
		return Finding{}, false
	}
	return withValues(d.r.newFinding(agent, o.hits.all(agent), map[string]string{
		"bytes": humanBytes(bytes), "destination": dest, "allowlist": o.allow,
		"methods": strings.Join(o.methods, ", "), "seen_by": seenBy,
	}), []string{dest}), true
}

// sweep ends every open episode that no send from now on can join.
// Each agent and destination's sends are its own, so the order they are
// closed in changes nothing.
func (d *dataOut) sweep(now time.Time) {
	k := 0
	for _, ss := range d.opened {
		d.closeBefore(ss.key, ss, now)
		if ss.listed = ss.open != nil; ss.listed {
			d.opened[k] = ss
			k++
		}
	}
	clear(d.opened[k:])
	d.opened = d.opened[:k]
}

// SizeText writes a byte count the way a responder reads it, in one unit
// system everywhere cordon writes sizes (IEC, powers of 1024): "230.1 MiB".
func SizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// humanBytes is SizeText with the exact count, for a finding's text.
func humanBytes(n int64) string {
	if n < 1<<10 {
		return SizeText(n)
	}
	return fmt.Sprintf("%s (%d bytes)", SizeText(n), n)
}
