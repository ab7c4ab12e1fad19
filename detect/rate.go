package detect

import (
	"sort"
	"strconv"

	"github.com/cordon-ir/cordon/evidence"
)

// rate counts each group's events in fixed windows (aligned to the clock)
// and flags a window whose count is far above both the group's own
// baseline (its mean per window over the rest of its active span) and its
// peers' (the mean per window of every other group over their spans). The
// condition bounds the ratio count / max(own, peers, 1); min_events skips
// windows too small to mean anything. Consecutive flagged windows make one
// finding.
type rate struct {
	r      *Rule
	group  field
	groups map[string]*rateGroup
}

type rateGroup struct {
	buckets     map[int64]*bucket
	first, last int64
	total       int
}

type bucket struct {
	n    int
	hits []hit // capped: a finding cites a sample of a burst
}

// maxBucketHits bounds the events a window keeps for citation.
const maxBucketHits = 200

func newRate(r *Rule) *rate {
	g, _ := lookupField(r.Correlation.GroupBy)
	return &rate{r: r, group: g, groups: map[string]*rateGroup{}}
}

func (r *rate) add(_ int, ev *evidence.Event) {
	g := groupKey(r.group, ev)
	if g == "" {
		return
	}
	k := ev.Time.UnixNano() / int64(r.r.Correlation.Window)
	rg := r.groups[g]
	if rg == nil {
		rg = &rateGroup{buckets: map[int64]*bucket{}, first: k, last: k}
		r.groups[g] = rg
	}
	b := rg.buckets[k]
	if b == nil {
		b = &bucket{}
		rg.buckets[k] = b
	}
	b.n++
	if len(b.hits) < maxBucketHits {
		b.hits = append(b.hits, hit{t: ev.Time, id: ev.ID, agent: ev.Agent})
	}
	rg.total++
	rg.first, rg.last = min(rg.first, k), max(rg.last, k)
}

func (rg *rateGroup) span() int64 { return rg.last - rg.first + 1 }

func (r *rate) done() []Finding {
	var allTotal, allSpan int64
	for _, rg := range r.groups {
		allTotal += int64(rg.total)
		allSpan += rg.span()
	}
	var out []Finding
	for _, g := range sortedKeys(r.groups) {
		rg := r.groups[g]
		peers := 0.0
		if n := allSpan - rg.span(); n > 0 {
			peers = float64(allTotal-int64(rg.total)) / float64(n)
		}
		keys := make([]int64, 0, len(rg.buckets))
		for k := range rg.buckets {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
		var run []int64
		var maxRatio, runOwn float64
		flush := func() {
			if len(run) == 0 {
				return
			}
			var hits []hit
			for _, k := range run {
				hits = append(hits, rg.buckets[k].hits...)
			}
			agent := g
			if r.r.Correlation.GroupBy != "agent" {
				agent = commonAgent(hits)
			}
			count := 0
			for _, k := range run {
				count += rg.buckets[k].n
			}
			out = append(out, r.r.newFinding(agent, hits, map[string]string{
				"count": strconv.Itoa(count), "ratio": strconv.FormatFloat(maxRatio, 'f', 0, 64),
				"baseline": strconv.FormatFloat(runOwn, 'f', 1, 64), "peers": strconv.FormatFloat(peers, 'f', 1, 64),
			}))
			run, maxRatio = nil, 0
		}
		for _, k := range keys {
			n := rg.buckets[k].n
			own := 0.0
			if rg.span() > 1 {
				own = float64(rg.total-n) / float64(rg.span()-1)
			}
			ratio := float64(n) / max(own, peers, 1)
			if n < r.r.Correlation.MinEvents || !r.r.Correlation.Condition.Holds(ratio) {
				flush()
				continue
			}
			if len(run) > 0 && run[len(run)-1] != k-1 {
				flush()
			}
			run = append(run, k)
			if ratio > maxRatio {
				maxRatio, runOwn = ratio, own
			}
		}
		flush()
	}
	return out
}
