package detect

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/cordon-ir/cordon/evidence"
)

// rate counts each group's events in fixed windows (aligned to the clock)
// and flags a window whose count is far above both the group's own
// baseline (its mean per window over the rest of its active span) and its
// peers' (the mean per window of every other group over their spans). The
// condition bounds the ratio count / max(own, peers, 1); min_events skips
// windows too small to mean anything. Consecutive flagged windows make one
// finding. A group's active span is its main span (evidence.MainRange over
// its windows): one record dated 9999-12-31 would otherwise spread its
// baseline over ten thousand years and make every busy minute a burst.
type rate struct {
	r      *Rule
	group  evidence.Field
	groups map[string]*rateGroup
	// made is what done last gave, while no event was counted since
	// (nil: none, or one was): every group's baseline and its peers' are
	// as they were
	made []Finding
	// held is the bytes of hits the buckets hold in memory; past after
	// (asideAfter), a window's are set aside as it closes (rate_aside.go)
	held, after int
	aside       hitsAside
}

// rateGroup counts a group's events in every window, and keeps the events
// of the windows that may be flagged: a window's count alone costs two
// numbers, where most windows are too small to flag. The windows are kept
// in order as they come (events come in time order), so the main span is
// found without sorting them at every answer.
type rateGroup struct {
	keys   []int64           // its windows, in order
	counts []int64           // each window's events
	cited  map[int64]*bucket // windows of at least min_events, and the newest
	lastK  int64
	last   *bucket   // the newest window, the one events still join
	span   *rateSpan // mainSpan's answer, while no event was counted since
}

// rateSpan is a group's active span (mainSpan), over its windows and
// their counts as they stood.
type rateSpan struct {
	keys   []int64
	counts []int64
	lo, hi int
	span   int64
	total  int
}

type bucket struct {
	// hits are the window's events, capped (a finding cites a sample of
	// a burst), each its time as an offset from base and its id packed
	// (eventid.go): 16 bytes the collector does not scan, for every
	// window that may be flagged once the whole span's baseline is
	// known. odd are the ids that do not pack, by their hit's place
	// (nil: none); agents are the hits' agents, set only once one is not
	// the group's (nil: every one is). The first hits are set aside,
	// in the extents of aside, in order; hits are those after.
	base   time.Time
	aside  []extent
	hits   []rateHit
	odd    map[int]string
	agents []string
}

// n is how many hits the window keeps.
func (b *bucket) n() int {
	n := len(b.hits)
	for _, e := range b.aside {
		n += e.n
	}
	return n
}

// setAside records the hits in memory as written at e.
func (b *bucket) setAside(e extent) { b.aside, b.hits = append(b.aside, e), nil }

type rateHit struct {
	off int64  // nanoseconds after base
	id  uint64 // evidence.PackID's, or 0 with the id in odd
}

// add keeps an event of group g for citing.
func (b *bucket) add(g string, t time.Time, id, agent string) {
	if b.n() == 0 {
		b.base = t
	}
	if b.agents == nil && agent != g {
		b.agents = make([]string, b.n(), b.n()-len(b.hits)+cap(b.hits))
		for i := range b.agents {
			b.agents[i] = g
		}
	}
	if b.agents != nil {
		b.agents = append(b.agents, agent)
	}
	n, ok := evidence.PackID(id)
	if !ok {
		if b.odd == nil {
			b.odd = map[int]string{}
		}
		b.odd[b.n()] = id
	}
	b.hits = append(b.hits, rateHit{off: int64(t.Sub(b.base)), id: n})
}

// cited are the window's events kept for citing, as hits, those set
// aside read back from a: all of them, or those before the first that
// could not be read, and why.
func (b *bucket) cited(g string, a *hitsAside) ([]hit, error) {
	all := b.hits
	var err error
	if len(b.aside) > 0 {
		all = make([]rateHit, 0, b.n())
		for _, e := range b.aside {
			if all, err = a.get(all, e); err != nil {
				break
			}
		}
		if err == nil {
			all = append(all, b.hits...)
		}
	}
	out := make([]hit, len(all))
	for i, h := range all {
		agent := g
		if b.agents != nil {
			agent = b.agents[i]
		}
		id, odd := b.odd[i]
		if !odd {
			id = evidence.UnpackID(h.id)
		}
		out[i] = hit{t: b.base.Add(time.Duration(h.off)), id: id, agent: agent}
	}
	return out, err
}

// closed is what becomes of bucket b, of window k of group rg, when the
// window closes: dropped when it can never be flagged; else its hits set
// aside when the rule holds more than after bytes of them in memory, or
// clipped.
func (r *rate) closed(rg *rateGroup, k int64, b *bucket) {
	switch {
	case rg.count(k) < int64(r.r.Correlation.MinEvents):
		r.held -= len(b.hits) * hitSize
		delete(rg.cited, k)
		return
	case r.held > r.after:
		if e, ok := r.aside.put(b.hits); ok {
			r.held -= len(b.hits) * hitSize
			b.setAside(e)
			return
		}
	}
	if cap(b.hits) > len(b.hits) {
		b.hits = slices.Clone(b.hits) // no room to grow kept
		b.agents = slices.Clip(slices.Clone(b.agents))
	}
}

// maxBucketHits bounds the events a window keeps for citation.
const maxBucketHits = 200

func newRate(r *Rule) *rate {
	g, _ := evidence.LookupField(r.Correlation.GroupBy)
	return &rate{r: r, group: g, groups: map[string]*rateGroup{}, after: asideAfter}
}

func (r *rate) add(_ int, ev *evidence.Event) {
	g := r.group.Key(ev)
	if g == "" {
		return
	}
	k := windowOf(ev.Time, r.r.Correlation.Window)
	rg := r.groups[g]
	if rg == nil {
		rg = &rateGroup{cited: map[int64]*bucket{}}
		r.groups[g] = rg
	}
	b := rg.last
	if b == nil || k != rg.lastK {
		// Events come in time order: the group's window before this one
		// is complete. One with fewer than min_events can never be
		// flagged, so no finding will cite its events; its count stays.
		if rg.last != nil {
			r.closed(rg, rg.lastK, rg.last)
		}
		if b = rg.cited[k]; b == nil {
			b = &bucket{}
			rg.cited[k] = b
		}
		rg.last, rg.lastK = b, k
	}
	rg.counted(k)
	rg.span, r.made = nil, nil
	if b.n() < maxBucketHits {
		b.add(g, ev.Time, ev.ID, ev.Agent)
		r.held += hitSize
	}
}

// counted counts an event in window k: the newest window, or one after
// it, as events come in time order (one before is put in its place).
func (rg *rateGroup) counted(k int64) {
	n := len(rg.keys)
	if n == 0 || k > rg.keys[n-1] {
		rg.keys, rg.counts = append(rg.keys, k), append(rg.counts, 1)
		return
	}
	i, ok := slices.BinarySearch(rg.keys, k)
	if !ok {
		rg.keys, rg.counts = slices.Insert(rg.keys, i, k), slices.Insert(rg.counts, i, 0)
	}
	rg.counts[i]++
}

// count is window k's events.
func (rg *rateGroup) count(k int64) int64 {
	if n := len(rg.keys); n > 0 && rg.keys[n-1] == k {
		return rg.counts[n-1]
	}
	if i, ok := slices.BinarySearch(rg.keys, k); ok {
		return rg.counts[i]
	}
	return 0
}

// windowOf is the number of the window of width w holding t, rounded
// down. Whole-second windows are counted in seconds, which hold any year;
// UnixNano holds only 1678-2262.
func windowOf(t time.Time, w time.Duration) int64 {
	sec := t.Unix()
	if w%time.Second == 0 {
		return floorDiv(sec, int64(w/time.Second))
	}
	const safe = math.MaxInt64/int64(time.Second) - 1
	sec = min(max(sec, -safe), safe)
	return floorDiv(sec*int64(time.Second)+int64(t.Nanosecond()), int64(w))
}

// windowStart is when window k of width w (windowOf's) begins.
func windowStart(k int64, w time.Duration) time.Time {
	if w%time.Second == 0 {
		return time.Unix(k*int64(w/time.Second), 0).UTC()
	}
	return time.Unix(0, k*int64(w)).UTC()
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// mainSpan finds the group's active span: its windows in order, the
// main range [lo, hi] of them, its length in windows and its events.
func (rg *rateGroup) mainSpan(window time.Duration) rateSpan {
	if rg.span != nil {
		return *rg.span
	}
	a := rateSpan{keys: rg.keys, counts: rg.counts}
	a.lo, a.hi = evidence.MainRange(a.keys, a.counts, int64(max(24*time.Hour/window, 1)))
	for _, n := range a.counts[a.lo : a.hi+1] {
		a.total += int(n)
	}
	a.span = a.keys[a.hi] - a.keys[a.lo] + 1
	rg.span = &a
	return a
}

func (r *rate) done() []Finding {
	if r.made == nil {
		r.made = r.judge()
		if r.made == nil {
			r.made = []Finding{}
		}
	}
	return slices.Clone(r.made)
}

// judge flags each group's windows against its baseline and its peers'.
func (r *rate) judge() []Finding {
	spans := make(map[string]rateSpan, len(r.groups))
	var allTotal, allSpan int64
	for g, rg := range r.groups {
		a := rg.mainSpan(r.r.Correlation.Window)
		spans[g] = a
		allTotal += int64(a.total)
		allSpan += a.span
	}
	var out []Finding
	for _, g := range sortedKeys(r.groups) {
		rg, a := r.groups[g], spans[g]
		peers := 0.0
		if n := allSpan - a.span; n > 0 {
			peers = float64(allTotal-int64(a.total)) / float64(n)
		}
		keys := a.keys
		var run []int // the flagged windows in a row, by their place in keys
		var maxRatio, runOwn float64
		flush := func() {
			if len(run) == 0 {
				return
			}
			var hits []hit
			var unread error
			for _, i := range run {
				if b := rg.cited[keys[i]]; b != nil {
					c, err := b.cited(g, &r.aside)
					hits = append(hits, c...)
					unread = cmp.Or(unread, err)
				}
			}
			agent := g
			if r.r.Correlation.GroupBy != "agent" {
				agent = commonAgent(hits)
			}
			var count int64
			for _, i := range run {
				count += a.counts[i]
			}
			vars := map[string]string{
				"count": strconv.FormatInt(count, 10), "ratio": strconv.FormatFloat(maxRatio, 'f', 0, 64),
				"baseline": strconv.FormatFloat(runOwn, 'f', 1, 64), "peers": strconv.FormatFloat(peers, 'f', 1, 64),
			}
			var f Finding
			if len(hits) == 0 && unread != nil {
				// no event to date it: the windows' span does
				f = r.r.blankFinding(agent)
				f.Start = windowStart(keys[run[0]], r.r.Correlation.Window)
				f.End = windowStart(keys[run[len(run)-1]]+1, r.r.Correlation.Window)
				f = r.r.finish(f, vars)
			} else {
				f = r.r.newFinding(agent, hits, vars)
			}
			if unread != nil {
				// say it cites less than it kept, and why
				f.Explanation += " Not all of its events are cited: " + unread.Error() + "."
			}
			out = append(out, f)
			run, maxRatio = nil, 0
		}
		for i, k := range keys {
			n := int(a.counts[i])
			own := 0.0
			switch {
			case i < a.lo || i > a.hi: // outside the active span
				own = float64(a.total) / float64(a.span)
			case a.span > 1:
				own = float64(a.total-n) / float64(a.span-1)
			}
			ratio := float64(n) / max(own, peers, 1)
			if n < r.r.Correlation.MinEvents || !r.r.Correlation.Condition.Holds(ratio) {
				flush()
				continue
			}
			if len(run) > 0 && keys[run[len(run)-1]] != k-1 {
				flush()
			}
			run = append(run, i)
			if ratio > maxRatio {
				maxRatio, runOwn = ratio, own
			}
		}
		flush()
	}
	return out
}
