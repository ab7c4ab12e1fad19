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
type windowCount struct {
	r        *Rule
	group    evidence.Field
	val      *evidence.Field // value_count only
	num      *evidence.Field // the metric correlations only
	metric   func([]float64) float64
	groups   map[string]*windowState
	findings []Finding
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

// episode accumulates the events of one finding.
type episode struct {
	hits   []hit
	metric float64         // the metric's value when it last held
	seen   map[string]bool // distinct values
	values []string        // in first-seen order
}

func (ep *episode) add(h valuedHit) {
	ep.hits = append(ep.hits, h.hit)
	for _, v := range h.vals {
		if !ep.seen[v] {
			ep.seen[v] = true
			ep.values = append(ep.values, v)
		}
	}
}

func newWindowCount(r *Rule) *windowCount {
	g, _ := evidence.LookupField(r.Correlation.GroupBy)
	w := &windowCount{r: r, group: g, groups: map[string]*windowState{}}
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
	h := valuedHit{hit: hit{t: ev.Time, id: ev.ID, agent: ev.Agent}}
	if w.val != nil {
		if h.vals = w.val.Values(ev); len(h.vals) == 0 {
			return
		}
	}
	if w.num != nil {
		vs := w.num.Values(ev)
		if len(vs) == 0 {
			return // no number: cordon keeps no zero counts
		}
		h.x, _ = strconv.ParseFloat(vs[0], 64)
	}
	st := w.groups[g]
	if st == nil {
		st = &windowState{vals: map[string]int{}}
		w.groups[g] = st
	}
	st.q = append(st.q, h)
	for _, v := range h.vals {
		st.vals[v]++
	}
	from := ev.Time.Add(-w.r.Correlation.Window)
	for len(st.q) > 0 && st.q[0].t.Before(from) {
		for _, v := range st.q[0].vals {
			if st.vals[v]--; st.vals[v] == 0 {
				delete(st.vals, v)
			}
		}
		st.q = st.q[1:]
	}
	n := float64(len(st.q))
	switch {
	case w.val != nil:
		n = float64(len(st.vals))
	case w.metric != nil:
		xs := make([]float64, len(st.q))
		for i, q := range st.q {
			xs[i] = q.x
		}
		n = w.metric(xs)
	}
	switch {
	case w.r.Correlation.Condition.Holds(n) && st.ep == nil:
		st.ep = &episode{seen: map[string]bool{}, metric: n}
		for _, x := range st.q {
			st.ep.add(x)
		}
	case w.r.Correlation.Condition.Holds(n):
		st.ep.add(h)
		st.ep.metric = n
	case st.ep != nil:
		w.emit(g, st.ep)
		st.ep = nil
	}
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
	return withValues(w.r.finding(g, slices.Clone(ep.hits), vars), ep.values)
}

// done gives the episodes closed and those still open, as they stand;
// an open one stays open, so more events may grow it.
func (w *windowCount) done() []Finding {
	out := slices.Clone(w.findings)
	for _, g := range sortedKeys(w.groups) {
		if st := w.groups[g]; st.ep != nil {
			out = append(out, w.finding(g, st.ep))
		}
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
