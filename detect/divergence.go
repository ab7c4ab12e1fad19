package detect

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// divergence is plan_divergence: a stretch in which most of an agent's
// tool calls are off its plan. It is Go because "off plan" is judged
// against the agent's own session: the working directory its objective
// names and its egress allowlist. Kept simple so a responder can check
// each call by eye; a call is off plan when it
//
//   - names an absolute path outside the objective's working directory
//     and outside the system's own directories (/tmp, /usr, /bin, /dev,
//     /proc/self, ...), such as ~/.netrc or /run/secrets/...;
//   - names a host or IP literal its allowlist does not admit;
//   - was refused: by the tool gateway, or by the proxy within a minute
//     and before the agent's next call.
//
// The condition bounds the off-plan calls within the window, and more
// than half of the agent's calls in that stretch must be off plan.
type divergence struct {
	r      *Rule
	e      *env
	agents map[string]*divState
	// learnt is the env's sessions (env.learnt) when done last ran: a
	// session learnt since may name another working directory for a
	// finding made before, so every agent's are made again
	learnt int
	// afresh makes the stretch still open with newFinding, as a closed
	// one is, instead of extending the one kept (tests: FindingsAfresh)
	afresh bool
}

type divState struct {
	// calls are the agent's calls from the base-th on (a call's place,
	// planCall.i, counts those compacted away); byCall finds them by
	// call id
	calls  []*planCall
	base   int
	byCall map[string]*planCall
	// floor is the first call a refusal may still change: the calls
	// before it were more than a window old when the ones before base
	// were compacted (compact)
	floor int
	// compactAt is the length of calls at which add compacts them next
	compactAt int
	// frozen is what the calls compacted away made of the stretch open
	// across them (from its first call, ep, to floor), when one was
	frozen divOpen
	// openEp is the first call of the stretch open after the last call
	// when done last scanned (-1: none)
	openEp int
	// What done made of the calls before changed (the first call added
	// or refused since) stands: marks are where its scan of the calls
	// had no stretch open, in call order, each with the scan's state
	// there and the findings made before it.
	changed int
	marks   []divMark
	found   []Finding
	// open is the stretch still open when done last ran, kept to be
	// extended by the calls added since rather than made again
	open divOpen
}

// divMark is done's scan before call i: the window's first call, its
// off-plan calls, where the stretch open there began (-1: none), and
// the findings made so far.
type divMark struct {
	i, start, off, ep, found int
}

// divOpen is an open stretch's calls [ep, upto) as a finding is made of
// them: their hits in time order (calls' and refusals', stable as
// newFinding sorts them), the reasons in call order, the off-plan calls.
type divOpen struct {
	ep, upto int
	t        time.Time // call ep's
	hits     citeList
	vals     []string
	n        int
	// cited are the ids of the first hits, in order, as the last finding
	// made of the stretch cited them, and span their times: a stretch
	// open for hours is cited again at every answer, so what it cited
	// is kept while its hits only grow at their end. A finding shares
	// cited up to its length; only the end of it is ever written.
	cited      []string
	start, end time.Time
}

// cite is the finding of the stretch's hits: its events, in the hits'
// order, and their span, as sortedFinding cites them.
func (o *divOpen) cite(agent string) (events []string, start, end time.Time) {
	if rest := o.hits.hits[len(o.cited):]; len(rest) > 0 {
		if o.cited == nil {
			o.cited = make([]string, 0, len(rest)) // a closed stretch is cited once
		}
		for _, h := range o.hits.unpackAll(rest, agent) {
			widen(&o.start, &o.end, h.t)
			o.cited = append(o.cited, h.id)
		}
	}
	return slices.Clip(o.cited), o.start, o.end
}

// planCall is what the rule keeps of a call: its time, ids and why it is
// off plan, not the parsed call (its paths and hosts are judged once).
type planCall struct {
	i       int // its place among the agent's calls
	t       time.Time
	id      string // the event's
	callID  string
	reasons []string
	denials []hit
}

func newDivergence(r *Rule, e *env) *divergence {
	return &divergence{r: r, e: e, agents: map[string]*divState{}}
}

// systemDirs are where a command line names programs and scratch files.
func systemDirs() []string {
	return []string{"/tmp", "/var/tmp", "/usr", "/bin", "/sbin", "/lib", "/dev/null", "/dev/stdout", "/dev/stderr", "/proc/self", "/opt/conda"}
}

func (d *divergence) add(_ int, ev *evidence.Event) {
	if ev.Agent == "" {
		return
	}
	st := d.agents[ev.Agent]
	if st == nil {
		st = &divState{byCall: map[string]*planCall{}, openEp: -1}
		d.agents[ev.Agent] = st
	}
	if ev.Kind == evidence.KindToolCall && ev.Source == evidence.SourceLedger {
		c := d.e.call(ev)
		pc := &planCall{i: st.end(), t: c.t, id: c.id, callID: c.callID, reasons: d.offPlan(c)}
		st.changed = min(st.changed, pc.i)
		st.calls = append(st.calls, pc)
		if pc.callID != "" {
			st.byCall[pc.callID] = pc
		}
		if len(st.calls) >= max(st.compactAt, compactCalls) {
			d.compact(ev.Agent, st)
		}
		return
	}
	if !isDenied(ev) {
		return
	}
	pc := st.byCall[ev.CallID]
	if pc != nil && pc.i < st.floor {
		pc = nil // more than a window before the calls kept
	}
	if pc == nil && ev.Source != evidence.SourceLedger && len(st.calls) > 0 {
		if last := st.calls[len(st.calls)-1]; ev.Time.Sub(last.t) <= callLink {
			pc = last
		}
	}
	if pc != nil {
		st.changed = min(st.changed, pc.i)
		if len(pc.denials) == 0 {
			pc.reasons = append(pc.reasons, "refused")
		}
		pc.denials = append(pc.denials, hit{t: ev.Time, id: ev.ID, agent: ev.Agent})
	}
}

// offPlan lists why a call is off the agent's plan (nil: on plan).
func (d *divergence) offPlan(c *call) []string {
	s := d.e.sessionAt(c.agent, c.t)
	if s == nil {
		return nil
	}
	var why []string
	for _, p := range c.paths {
		if underDir(p, s.workdir) {
			continue
		}
		system := false
		for _, dir := range systemDirs() {
			system = system || underDir(p, dir)
		}
		if !system {
			why = append(why, p)
		}
	}
	for _, h := range c.hosts {
		if exact, wild := allowed(s.egress, h); !exact && !wild {
			why = append(why, h)
		}
	}
	return why
}

func (d *divergence) done() []Finding {
	var out []Finding
	if d.learnt != d.e.learnt {
		d.learnt = d.e.learnt
		for _, st := range d.agents {
			st.changed = st.floor
		}
	}
	for _, agent := range sortedKeys(d.agents) {
		out = append(out, d.agentDone(agent, d.agents[agent], true)...)
	}
	return out
}

// markEvery is how many calls apart done keeps the marks it resumes from,
// at least (a variable for the tests, which mark every call).
var markEvery = 64

// agentDone is one agent's findings: those made before the last mark
// before its first call changed stand, the scan resumes there. Without
// answer it brings the scan and the open stretch up to date and makes
// no finding of the stretch (compact and quiet, which answer nothing).
func (d *divergence) agentDone(agent string, st *divState, answer bool) []Finding {
	window := d.r.Correlation.Window
	m := divMark{}
	if k, _ := slices.BinarySearchFunc(st.marks, st.changed+1, func(m divMark, i int) int { return cmp.Compare(m.i, i) }); k > 0 {
		m = st.marks[k-1]
		st.marks = st.marks[:k]
	} else {
		st.marks = st.marks[:0]
	}
	changedAt := st.changed
	st.found = st.found[:m.found]
	start, epStart, off := m.start, m.ep, m.off // off: off-plan calls in [start, i]
	if len(st.marks) == 0 {
		epStart = -1
	}
	flush := func(end int) {
		if epStart < 0 {
			return
		}
		o := st.stretch(epStart)
		st.extend(&o, end, agent)
		st.found = append(st.found, d.finding(agent, &o, end))
		epStart = -1
	}
	for i := m.i; i < st.end(); i++ {
		if len(st.marks) == 0 || i-st.marks[len(st.marks)-1].i >= markEvery {
			st.marks = append(st.marks, divMark{i: i, start: start, off: off, ep: epStart, found: len(st.found)})
		}
		pc := st.at(i)
		if len(pc.reasons) > 0 {
			off++
		}
		for pc.t.Sub(st.at(start).t) > window {
			if len(st.at(start).reasons) > 0 {
				off--
			}
			start++
		}
		total := i - start + 1
		if d.r.Correlation.Condition.Holds(float64(off)) && 2*off > total {
			if epStart < 0 {
				epStart = start
			}
		} else {
			flush(i)
		}
	}
	made := len(st.found)
	st.openEp = epStart
	// a stretch still open: made again next time, from what is kept of it
	// while none of its calls changed
	switch {
	case d.afresh:
		flush(st.end())
		st.open = divOpen{ep: -1}
	case epStart >= 0 && answer:
		st.found = append(st.found, d.openFinding(agent, st, epStart, changedAt))
	case epStart >= 0:
		st.openUpTo(epStart, changedAt, agent)
	}
	var out []Finding
	if answer {
		out = slices.Clone(st.found)
	}
	st.found, st.changed = st.found[:made], st.end()
	return out
}

// openFinding is the finding of the stretch open from call ep to the
// last: what was kept of it extended by the calls since, when it began
// at the same call and none of those kept changed (changedAt: the first
// call added or refused since done last ran). The same finding flush
// makes with newFinding: a stretch's hits are each a call's or a
// refusal's, and an event is one call or one refusal of one call, so
// they are unique and newFinding keeps them all, in time order, ties in
// call order.
func (d *divergence) openFinding(agent string, st *divState, ep, changedAt int) Finding {
	st.openUpTo(ep, changedAt, agent)
	return d.finding(agent, &st.open, st.end())
}

// openUpTo brings the open stretch kept up to the last call, as
// openFinding does.
func (st *divState) openUpTo(ep, changedAt int, agent string) {
	o := &st.open
	if o.ep != ep || o.upto > changedAt || o.upto < ep {
		*o = st.stretch(ep)
	}
	st.extend(o, st.end(), agent)
}

// stretch is the stretch from call ep as far as the calls before base
// made it (compact kept it), or nothing of it.
func (st *divState) stretch(ep int) divOpen {
	if ep < st.base {
		f := st.frozen
		return divOpen{ep: ep, upto: f.upto, t: f.t, hits: f.hits.clone(), vals: slices.Clone(f.vals), n: f.n}
	}
	return divOpen{ep: ep, upto: ep, t: st.at(ep).t}
}

// extend adds the calls from o.upto to end to the stretch: their hits
// (the call's, its refusals') merged in time order as newFinding would
// sort them, the reasons in call order, the calls off plan.
func (st *divState) extend(o *divOpen, end int, agent string) {
	var add []hit
	for _, pc := range st.calls[o.upto-st.base : end-st.base] {
		if len(pc.reasons) == 0 {
			continue
		}
		o.n++
		add = append(add, hit{t: pc.t, id: pc.id, agent: agent})
		add = append(add, pc.denials...)
		for _, r := range pc.reasons {
			o.vals = appendNew(o.vals, r)
		}
	}
	o.upto = end
	o.merge(add, agent)
}

// merge adds hits to the stretch's; what it cited stands while they only
// followed the hits it cited.
func (o *divOpen) merge(add []hit, agent string) {
	if from := o.hits.merge(add, agent); from < len(o.cited) {
		o.cited, o.start, o.end = nil, time.Time{}, time.Time{} // cited anew: findings share the old
	}
}

// finding is the finding of the stretch o, of the calls up to end.
func (d *divergence) finding(agent string, o *divOpen, end int) Finding {
	workdir := "its working directory"
	if s := d.e.sessionAt(agent, o.t); s != nil && s.workdir != "" {
		workdir = s.workdir
	}
	f := d.r.blankFinding(agent)
	f.Events, f.Start, f.End = o.cite(agent)
	return withValues(d.r.finish(f, map[string]string{
		"count": strconv.Itoa(o.n), "calls": strconv.Itoa(end - o.ep),
		"workdir": workdir, "values": listValues(o.vals, 4),
	}), o.vals)
}

// mergeByTime is the stable sort by time of sorted's hits followed by
// add's, sorted being sorted already: add sorted (stable), then the two
// merged, ties to sorted.
func mergeByTime(sorted, add []hit) []hit {
	return mergeSorted(sorted, add, hitByTime)
}

func hitByTime(a, b hit) int { return a.t.Compare(b.t) }

// mergeSorted is the stable sort by cmp of sorted followed by add, sorted
// being sorted already: add sorted (stable), then the two merged, ties to
// sorted.
func mergeSorted[T any](sorted, add []T, cmp func(a, b T) int) []T {
	out, _ := mergeFrom(sorted, add, cmp)
	return out
}

// mergeFrom is mergeSorted, and the first place of sorted it changed
// (len(sorted) when add only followed it): the items before it stand.
func mergeFrom[T any](sorted, add []T, cmp func(a, b T) int) ([]T, int) {
	if len(add) == 0 {
		return sorted, len(sorted)
	}
	if !slices.IsSortedFunc(add, cmp) {
		slices.SortStableFunc(add, cmp)
	}
	n := len(sorted)
	// the items of sorted after add's first keep their order after it
	k, _ := slices.BinarySearchFunc(sorted, add[0], func(x, first T) int {
		if cmp(x, first) > 0 {
			return 1
		}
		return -1
	})
	if k == n {
		return append(sorted, add...), n
	}
	tail := slices.Clone(sorted[k:])
	out := sorted[:k]
	i, j := 0, 0
	for i < len(tail) && j < len(add) {
		if cmp(add[j], tail[i]) < 0 {
			out = append(out, add[j])
			j++
		} else {
			out = append(out, tail[i])
			i++
		}
	}
	out = append(out, tail[i:]...)
	return append(out, add[j:]...), k
}

// quiet drops every call of an agent whose last call is more than a
// window old: its next call's window holds none of them, so the scan
// resumes there with nothing off plan in its window, the stretch open at
// the end kept as frozen.
func (d *divergence) quiet(agent string, st *divState) {
	d.agentDone(agent, st, false)
	ep := st.openEp
	switch {
	case ep < 0:
		st.frozen = divOpen{}
	case ep >= st.base: // else frozen is this stretch's already
		st.frozen = st.stretch(ep)
	}
	end := st.end()
	if ep >= 0 {
		st.extend(&st.frozen, end, agent)
	}
	for _, pc := range st.calls {
		if id := pc.callID; id != "" && st.byCall[id] == pc {
			delete(st.byCall, id)
		}
	}
	st.calls, st.base, st.floor = nil, end, end
	st.marks = []divMark{{i: end, start: end, ep: ep, found: len(st.found)}}
	st.compactAt = compactCalls
}

// end is the place the agent's next call takes.
func (st *divState) end() int { return st.base + len(st.calls) }

// at is the agent's i-th call (i at least base).
func (st *divState) at(i int) *planCall { return st.calls[i-st.base] }

// compactCalls is how many calls of an agent add lets accumulate before
// it compacts them (a variable for the tests).
var compactCalls = 1024

// compact forgets the agent's calls done no longer needs, so that what
// the rule holds of an agent is about its last window's calls, not every
// call of the incident. It brings the agent's findings up to date, then
// takes the latest mark of that scan whose call is more than a window
// before the agent's last: the scan resumes there at the latest, its
// findings before it stand, and the calls before its window's first
// call are dropped. A refusal
// naming a call before the mark is not taken (floor): the call is more
// than a window old, as for denial_adaptation (recentCalls). Of a stretch
// open at the mark, what its calls before the mark make of its finding
// (hits, reasons, count) is kept instead of them: the finding cites
// every call of it, but needs no more of them.
func (d *divergence) compact(agent string, st *divState) {
	st.compactAt = 2 * len(st.calls)
	d.agentDone(agent, st, false)
	from := st.at(st.end() - 1).t.Add(-d.r.Correlation.Window)
	k := -1
	for j := len(st.marks) - 1; j >= 0; j-- {
		if m := st.marks[j]; m.i > st.floor && st.at(m.i).t.Before(from) {
			k = j
			break
		}
	}
	if k < 0 {
		return
	}
	m := st.marks[k]
	if m.ep >= 0 && m.ep < m.start {
		if m.ep >= st.base { // else frozen is this stretch's already
			st.frozen = st.stretch(m.ep)
		}
		st.extend(&st.frozen, m.i, agent)
	} else {
		st.frozen = divOpen{}
	}
	for _, pc := range st.calls[:m.start-st.base] {
		if id := pc.callID; id != "" && st.byCall[id] == pc {
			delete(st.byCall, id)
		}
	}
	st.calls = slices.Clone(st.calls[m.start-st.base:])
	st.base, st.floor = m.start, m.i
	st.marks = slices.Delete(st.marks, 0, k)
	st.compactAt = max(compactCalls, 2*len(st.calls))
}
