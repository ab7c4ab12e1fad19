package detect

import (
	"slices"
	"strconv"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// windowCount is event_count, value_count and the metric correlations:
// per group, a window sliding over the group's events; while the window's
// number (events, distinct values of the field, or the sum, mean,
// percentile or median of its numbers) meets the condition, the events belong to one
// episode, and each episode is one finding.
//
// A condition with neq is judged otherwise: a running count passes
// through the number neq excludes on its way up (neq 3 holds at 1 and 2),
// so the window is a fixed one, opened by the group's first event and
// closed by the first event past its end; its final number meeting the
// condition makes the window's events one finding. The next event opens
// the next window. This is the group's count in the timespan that a
// query backend's bucketed count (pySigma's stats by timespan) compares.
type windowCount struct {
	r        *Rule
	group    evidence.Field
	val      *evidence.Field // value_count only
	num      *evidence.Field // the metric correlations only
	metric   func([]float64) float64
	groups   map[string]*windowState
	findings []Finding
	final    bool // the condition is judged on a closed window (neq)
}

type windowState struct {
	q    []valuedHit
	vals map[string]int // value -> events in the window carrying it
	ep   *episode
}

type valuedHit struct {
	hit
	vals []string
	x    float64 // the metric correlations' number
}

// episode accumulates the events of one finding, packed for agent (its
// first event's; citeList).
type episode struct {
	cites  citeList
	agent  string
	metric float64         // the metric's value when it last held
	seen   map[string]bool // distinct values
	values []string        // in first-seen order
	// made is the finding done last made of it, while nothing was added
	// since: a group that got no event between two answers costs none
	made *Finding
	// cited are the ids of its first upto hits as its findings cite them
	// (newFinding: in time order, each once), span their times and
	// common is their commonAgent: an episode open for hours is cited
	// again at every answer, while its hits only grow at their end. A
	// finding shares cited up to its length; only the end of it is ever
	// written. unsorted says a hit came before the one cited last: the
	// findings are then made by newFinding from every hit.
	cited      []string
	upto       int
	atEnd      int // where the ids cited at end begin
	start, end time.Time
	common     string
	mixed      bool
	unsorted   bool
}

// cite brings what the episode cites up to its last hit, and says
// whether its hits are in time order (false: cited is not to be read).
func (ep *episode) cite() bool {
	rest := ep.cites.hits[ep.upto:]
	if ep.unsorted || len(rest) == 0 {
		return !ep.unsorted
	}
	for _, h := range ep.cites.unpackAll(rest, ep.agent) {
		if len(ep.cited) == 0 {
			ep.common = h.agent
		}
		ep.mixed = ep.mixed || h.agent != ep.common // commonAgent reads every hit
		switch {
		case len(ep.cited) == 0:
		case h.t.Before(ep.end):
			ep.unsorted, ep.cited = true, nil
			return false
		case h.t.Equal(ep.end):
			// newFinding cites an event once, and an event is one time
			if slices.Contains(ep.cited[ep.atEnd:], h.id) {
				continue
			}
		default:
			ep.atEnd = len(ep.cited)
		}
		widen(&ep.start, &ep.end, h.t)
		ep.cited = append(ep.cited, h.id)
	}
	ep.upto = len(ep.cites.hits)
	return true
}

func (ep *episode) add(h valuedHit) {
	ep.made = nil
	if len(ep.cites.hits) == 0 {
		ep.agent = h.agent
	}
	ep.cites.add(h.hit, ep.agent)
	for _, v := range h.vals {
		if !ep.seen[v] {
			ep.seen[v] = true
			ep.values = append(ep.values, v)
		}
	}
}

func newWindowCount(r *Rule) *windowCount {
	g, _ := evidence.LookupField(r.Correlation.GroupBy)
	w := &windowCount{r: r, group: g, groups: map[string]*windowState{}, final: r.Correlation.Condition.Neq != nil}
	f, _ := evidence.LookupField(r.Correlation.Field)
	switch {
	case r.Correlation.Type == ValueCount:
		w.val = &f
	case metric(r.Correlation.Type):
		w.num, w.metric = &f, metricOf(r.Correlation)
	}
	return w
}

func (w *windowCount) add(step int, ev *evidence.Event) {
	g := w.r.groupKey(w.group, step, ev)
	if g == "" {
		return
	}
	if h, ok := w.valued(ev); ok {
		w.addHit(g, h)
	}
}

// valued is the event as the window keeps it, with its values of the
// field (value_count) or its number (the metric correlations); false
// when it has none, and is not in the window.
func (w *windowCount) valued(ev *evidence.Event) (valuedHit, bool) {
	h := valuedHit{hit: hit{t: ev.Time, id: ev.ID, agent: ev.Agent}}
	if w.val != nil {
		if h.vals = w.val.Values(ev); len(h.vals) == 0 {
			return h, false
		}
	}
	if w.num != nil {
		vs := w.num.Values(ev)
		if len(vs) == 0 {
			return h, false // no number: cordon keeps no zero counts
		}
		h.x, _ = strconv.ParseFloat(vs[0], 64)
	}
	return h, true
}

// valuedAs is h (a chain's stand-in for another correlation's finding)
// holding value v of the field: false when the window needs a value (or
// a number) and v is none.
func (w *windowCount) valuedAs(h hit, v string) (valuedHit, bool) {
	vh := valuedHit{hit: h}
	if w.val != nil {
		if v == "" {
			return vh, false
		}
		vh.vals = []string{v}
	}
	if w.num != nil {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return vh, false
		}
		vh.x = x
	}
	return vh, true
}

// addHit takes the next hit of group g, in time order.
func (w *windowCount) addHit(g string, h valuedHit) {
	st := w.groups[g]
	if st == nil {
		st = &windowState{vals: map[string]int{}}
		w.groups[g] = st
	}
	if w.final {
		// the event past the window's end closes it: its number is final
		if len(st.q) > 0 && h.t.Sub(st.q[0].t) > w.r.Correlation.Window {
			if ep := w.closed(st); ep != nil {
				w.emit(g, ep)
			}
			st.q, st.vals = nil, map[string]int{}
		}
		st.push(h)
		return
	}
	st.push(h)
	st.expire(h.t.Add(-w.r.Correlation.Window))
	n := w.number(st)
	switch {
	case w.r.Correlation.Condition.Holds(n) && st.ep == nil:
		st.ep = &episode{seen: map[string]bool{}, metric: n}
		for _, x := range st.q {
			st.ep.add(x)
		}
	case w.r.Correlation.Condition.Holds(n):
		st.ep.add(h)
		st.ep.metric = n // add forgot what was made
	case st.ep != nil:
		w.emit(g, st.ep)
		st.ep = nil
	}
}

// expire drops the window's events before from.
func (st *windowState) expire(from time.Time) {
	for len(st.q) > 0 && st.q[0].t.Before(from) {
		for _, v := range st.q[0].vals {
			if st.vals[v]--; st.vals[v] == 0 {
				delete(st.vals, v)
			}
		}
		st.q = st.q[1:]
	}
	if len(st.q) == 0 {
		st.q = nil // the next push starts a small array again
	}
}

func (st *windowState) push(h valuedHit) {
	st.q = append(st.q, h)
	for _, v := range h.vals {
		st.vals[v]++
	}
}

// number is the window's: its events, distinct values or metric.
func (w *windowCount) number(st *windowState) float64 {
	switch {
	case w.val != nil:
		return float64(len(st.vals))
	case w.metric != nil:
		xs := make([]float64, len(st.q))
		for i, q := range st.q {
			xs[i] = q.x
		}
		return w.metric(xs)
	}
	return float64(len(st.q))
}

// closed is the episode of a fixed window (neq) whose number meets the
// condition, nil when it does not or the window is empty.
func (w *windowCount) closed(st *windowState) *episode {
	if len(st.q) == 0 {
		return nil
	}
	n := w.number(st)
	if !w.r.Correlation.Condition.Holds(n) {
		return nil
	}
	ep := &episode{seen: map[string]bool{}, metric: n}
	for _, x := range st.q {
		ep.add(x)
	}
	return ep
}

func (w *windowCount) emit(g string, ep *episode) {
	w.findings = append(w.findings, w.finding(g, ep))
}

func (w *windowCount) finding(g string, ep *episode) Finding {
	vars := map[string]string{}
	if w.val != nil {
		vars["distinct"] = strconv.Itoa(len(ep.values))
		vars["field"] = w.r.Correlation.Field
		vars["values"] = listValues(ep.values, 5)
	}
	if w.num != nil {
		vars["value"] = formatMetric(ep.metric)
		vars["field"] = w.r.Correlation.Field
	}
	if !ep.cite() {
		return withValues(w.r.finding(g, ep.cites.all(ep.agent), vars), ep.values)
	}
	common := ep.common
	if ep.mixed {
		common = ""
	}
	return withValues(w.r.citedFinding(g, slices.Clip(ep.cited), ep.start, ep.end, common, vars), ep.values)
}

// done gives the episodes closed and those still open, as they stand;
// an open one stays open, so more events may grow it. A fixed window
// (neq) still open is judged on its number so far: at the end of the
// events it is final; while events may follow, the finding may go (the
// count reaches the number neq excludes) or come.
func (w *windowCount) done() []Finding {
	out := slices.Clone(w.findings)
	for _, g := range sortedKeys(w.groups) {
		st := w.groups[g]
		ep := st.ep
		if w.final {
			ep = w.closed(st)
		}
		if ep == nil {
			continue
		}
		if ep.made == nil {
			f := w.finding(g, ep)
			ep.made = &f
		}
		out = append(out, *ep.made)
	}
	return out
}

// episodes merges time-ordered items into runs whose consecutive items are
// at most gap apart; it returns the index ranges [start, end).
func episodes(times []time.Time, gap time.Duration) [][2]int {
	var out [][2]int
	for i := range times {
		if i == 0 || times[i].Sub(times[i-1]) > gap {
			out = append(out, [2]int{i, i + 1})
		} else {
			out[len(out)-1][1] = i + 1
		}
	}
	return out
}

// runs splits items, in time order, into episodes whose gaps stay within
// the rule's window and keeps those whose size meets its condition.
func runs[T any](r *Rule, items []T, at func(T) time.Time) [][]T {
	times := make([]time.Time, len(items))
	for i, it := range items {
		times[i] = at(it)
	}
	var out [][]T
	for _, ep := range episodes(times, r.Correlation.Window) {
		if run := items[ep[0]:ep[1]]; r.Correlation.Condition.Holds(float64(len(run))) {
			out = append(out, run)
		}
	}
	return out
}
